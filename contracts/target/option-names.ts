/**
 * How one way of running the suite names its settings in what it tells the user: the command names its flags
 * and environment variables, the library (`runChecks`) and the Vitest entry (`defineContractSuite`) the fields
 * of `TargetConfig`. A message says what to change in the words of the place where it is changed.
 */
export interface OptionNames {
  baseUrl: string
  secretKey: string
  publishableKey: string
  /** Provisioning through the mock's control plane. */
  provisionMock: string
  mockControlUrl: string
  mockAdminToken: string
  maxWait: string
}

/** The fields of `TargetConfig`, for `runChecks` and `defineContractSuite`. */
export const TARGET_CONFIG_NAMES: OptionNames = {
  baseUrl: 'baseUrl',
  secretKey: 'secretKey',
  publishableKey: 'publishableKey',
  provisionMock: "provision: 'mock'",
  mockControlUrl: 'mockControlUrl',
  mockAdminToken: 'mockAdminToken',
  maxWait: 'maxWaitSeconds',
}

/** The prefix the spec gives publishable keys (docs/decisions/003-api-keys.md). */
const PUBLISHABLE_PREFIX = 'pk-svc-'

/**
 * Why the key given as the secret key cannot be one, or undefined: a publishable key (known by its prefix)
 * holds `agents:read` only, so every other check would fail with a 403 that says nothing about the cause.
 * The key itself is never part of the message.
 */
export function secretKeyProblem(key: string | undefined, names: OptionNames): string | undefined {
  if (!key?.startsWith(PUBLISHABLE_PREFIX)) return undefined
  return `The secret key (${names.secretKey}) is a publishable key (${PUBLISHABLE_PREFIX}...): the suite needs the account's secret key (sk-svc-...); give the publishable key as ${names.publishableKey}.`
}

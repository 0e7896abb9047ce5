import type { ScopedKey } from '../target/target.ts'

/** The keys a run can use, given by the user or provisioned on the mock. */
export interface Keyring {
  /** Full-access secret key of the account under test. */
  secret: string
  publishable?: string
  revoked?: string
  expired?: string
  /** Keys with known scopes, for the authorization matrix. */
  scoped: ScopedKey[]
  /** A key restricted to `origin` (provisioned only). */
  originRestricted?: { key: string; origin: string }
  /** A secret key of an account that has call logs (the account under test, or the mock's seeded one). */
  callLogs?: string
  /** Whether the account under test was created by this run (so every object in it is the run's own). */
  ownAccount: boolean
  /** Environment variable names of the keys the user gave, for curl commands. */
  names: Map<string, string>
  /** Every key value, so that reports never print them. */
  secrets(): string[]
}

/** A keyring from the keys the user gave. */
export function keyringFromTarget(input: {
  secretKey: string
  publishableKey?: string
  revokedKey?: string
  expiredKey?: string
  scopedKeys?: ScopedKey[]
  originKey?: { origin: string; key: string }
}): Keyring {
  const names = new Map<string, string>([[input.secretKey, 'VOICE_API_KEY']])
  if (input.publishableKey) names.set(input.publishableKey, 'VOICE_API_PUBLISHABLE_KEY')
  if (input.revokedKey) names.set(input.revokedKey, 'VOICE_API_REVOKED_KEY')
  if (input.expiredKey) names.set(input.expiredKey, 'VOICE_API_EXPIRED_KEY')
  const keyring: Keyring = {
    secret: input.secretKey,
    publishable: input.publishableKey,
    revoked: input.revokedKey,
    expired: input.expiredKey,
    scoped: input.scopedKeys ?? [],
    originRestricted: input.originKey,
    callLogs: input.secretKey,
    ownAccount: false,
    names,
    secrets: () => collectSecrets(keyring),
  }
  return keyring
}

/** Every key value held by a keyring. */
export function collectSecrets(keyring: Omit<Keyring, 'secrets'>): string[] {
  const values = [keyring.secret, keyring.publishable, keyring.revoked, keyring.expired, keyring.callLogs]
  values.push(keyring.originRestricted?.key, ...keyring.scoped.map((s) => s.key))
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v.length > 0))]
}

import { scenarioNote } from '../checks/failure.ts'
import { describeNetworkError, RetryTooLong, TargetUnreachable } from '../http/errors.ts'
import { type Exchange, redactText } from '../http/exchange.ts'
import { type OptionNames, TARGET_CONFIG_NAMES } from '../target/option-names.ts'

/** The run cannot start (or go on): the configuration or the target is not what it must be. One line. */
export class ConfigError extends Error {}

const PRISM_ERRORS = 'https://stoplight.io/prism/errors#'

const errorOf = (exchange: Exchange) =>
  ((exchange.response.json as { error?: Record<string, unknown> } | undefined)?.error ?? {}) as Record<
    string,
    unknown
  >

/**
 * `: <code>, <message>` of an error answer, for the middle of a sentence: the target's own closing
 * punctuation is left out (the sentence goes on after it).
 */
function said(exchange: Exchange, secrets: readonly string[]): string {
  const error = errorOf(exchange)
  const parts = [error.code, error.message].filter((p): p is string => typeof p === 'string' && p !== '')
  if (parts.length === 0) return ''
  return `: ${redactText(parts.join(', '), secrets)
    .slice(0, 200)
    .replace(/[\s.;:,!]+$/, '')}`
}

/**
 * Judges the first request of a run, `GET /user` with the secret key, before any check runs: a target that
 * cannot be reached, a key it refuses, a base URL that routes nowhere or a target answering errors stops the
 * run with one message that names the cause, instead of one identical failure per check.
 */
export function judgeProbe(
  exchange: Exchange,
  baseUrl: string,
  secrets: readonly string[],
  names: OptionNames = TARGET_CONFIG_NAMES,
): void {
  const { status, headers } = exchange.response
  const url = `${baseUrl}/user`
  const type = (headers['content-type'] ?? '').split(';')[0]?.trim() ?? ''
  if (status !== 200 && headers['mock-scenario'])
    throw new ConfigError(
      `GET ${url} answered ${status}${said(exchange, secrets)}${scenarioNote(exchange)}; no check ran.`,
    )
  if (status === 200) {
    if (exchange.response.json === undefined)
      throw new ConfigError(
        `GET ${url} answered 200 with ${type || 'no Content-Type'}, not JSON: the base URL must be the v1 API's (it ends with /v1, e.g. https://api.example.com/v1).`,
      )
    return
  }
  if (status === 401)
    throw new ConfigError(
      `The secret key is not accepted: GET ${url} answered 401${said(exchange, secrets)}. Check ${names.secretKey} (is it revoked or expired?).`,
    )
  if (status === 403)
    throw new ConfigError(
      `The secret key is refused: GET ${url} answered 403${said(exchange, secrets)}. The suite needs a secret key without IP or origin restrictions.`,
    )
  if (status === 404) {
    const problem = exchange.response.json as { type?: string } | undefined
    if (problem?.type?.startsWith(PRISM_ERRORS)) {
      const origin = baseUrl.replace(/\/v1$/, '')
      throw new ConfigError(
        `Prism answered GET ${url} with 404 (${problem.type.slice(PRISM_ERRORS.length)}): no path of the contract starts there. Against prism mock the base URL is its origin without /v1${origin !== baseUrl ? ` (${origin})` : ''}.`,
      )
    }
    throw new ConfigError(
      `GET ${url} answered 404${said(exchange, secrets)}: the base URL must be where the v1 API starts (it ends with /v1, e.g. https://api.example.com/v1).`,
    )
  }
  if (status >= 500)
    throw new ConfigError(
      `GET ${url} answered ${status}${said(exchange, secrets)}: the target is not healthy, so no check ran.`,
    )
  throw new ConfigError(
    `GET ${url} answered ${status}${said(exchange, secrets)} instead of 200: is ${baseUrl} the v1 API?`,
  )
}

/** Turns what sending the first request threw into the one message that stops the run. */
export function probeFailure(
  error: unknown,
  baseUrl: string,
  names: OptionNames = TARGET_CONFIG_NAMES,
): Error {
  if (error instanceof TargetUnreachable)
    return new ConfigError(
      `Cannot reach ${baseUrl}: ${describeNetworkError(error.error)}. Is the target running, and is ${names.baseUrl} right?`,
    )
  if (error instanceof RetryTooLong)
    return new ConfigError(
      `The account's rate limit is used up: ${error.reason}, longer than ${names.maxWait} (${error.maxWaitSeconds} s). Try again later.`,
    )
  return error instanceof Error ? error : new Error(String(error))
}

/** Turns a failure to provision through the mock's control plane into the message that stops the run. */
export function provisionFailure(
  error: unknown,
  root: string,
  names: OptionNames = TARGET_CONFIG_NAMES,
): Error {
  const code =
    (error as { code?: unknown; cause?: { code?: unknown } })?.code ??
    (error as { cause?: { code?: unknown } })?.cause?.code
  if (typeof code === 'string' || error instanceof TypeError)
    return new ConfigError(
      `Cannot reach the mock's control plane at ${root}: ${describeNetworkError(error)}. Is the mock running (voice-api-kit mock), and is ${names.baseUrl} (or ${names.mockControlUrl}) right?`,
    )
  const message = error instanceof Error ? error.message : String(error)
  if (/answered 404/.test(message))
    return new ConfigError(
      `${root} is not the mock's control plane (${message.slice(0, 160)}): ${names.provisionMock} works against voice-api-kit mock; pass ${names.mockControlUrl} when it is elsewhere.`,
    )
  if (/answered (401|403)/.test(message))
    return new ConfigError(
      `The mock's control plane refused the run (${message.slice(0, 160)}): pass ${names.mockAdminToken} when the mock was started with --admin-token.`,
    )
  return new ConfigError(`Provisioning through the mock's control plane failed: ${message.slice(0, 300)}`)
}

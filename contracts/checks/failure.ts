import type { Exchange } from '../http/exchange.ts'

/**
 * What to add to a failure whose response a mock's scenario injected (header `Mock-Scenario`): the target is
 * a mock with a scenario left on, not an implementation that broke the rule.
 */
export function scenarioNote(exchange: Exchange | undefined): string {
  const scenario = exchange?.response.headers['mock-scenario']
  if (!scenario) return ''
  return ` (the mock's scenario ${scenario} injected this answer, header Mock-Scenario: a scenario was left on; DELETE /_mock/scenarios removes them, and --provision mock does it before a run)`
}

/** A broken contract rule: what the contract expected, what came back, and the exchange that shows it. */
export class ContractFailure extends Error {
  readonly actual: string
  constructor(
    readonly expected: string,
    actual: string,
    readonly exchange?: Exchange,
  ) {
    const noted = `${actual}${scenarioNote(exchange)}`
    super(`expected ${expected}; got ${noted}`)
    this.name = 'ContractFailure'
    this.actual = noted
  }
}

/** A check that cannot run here; `notApplicable` marks the ones that never apply to this kind of target. */
export class CheckSkipped extends Error {
  constructor(
    readonly reason: string,
    readonly notApplicable = false,
  ) {
    super(reason)
    this.name = 'CheckSkipped'
  }
}

/** Fails the check. */
export function fail(expected: string, actual: string, exchange?: Exchange): never {
  throw new ContractFailure(expected, actual, exchange)
}

/** Fails unless `condition` holds. */
export function ensure(condition: unknown, expected: string, actual: string, exchange?: Exchange): void {
  if (!condition) fail(expected, actual, exchange)
}

const bodyOf = (exchange: Exchange) => exchange.response.json as Record<string, unknown> | undefined

/** Fails unless the status is one of `statuses`. */
export function expectStatus(exchange: Exchange, statuses: number | readonly number[], why = ''): void {
  const allowed = typeof statuses === 'number' ? [statuses] : statuses
  const { status } = exchange.response
  if (allowed.includes(status)) return
  const error = (bodyOf(exchange)?.error ?? {}) as Record<string, unknown>
  const detail = error.code ? ` (${String(error.code)})` : ''
  fail(`status ${allowed.join(' or ')}${why ? ` ${why}` : ''}`, `${status}${detail}`, exchange)
}

/** The expected fields of an error envelope. */
export interface ExpectedError {
  type?: string
  code?: string | readonly string[]
  /** Optional in the envelope (docs/decisions/007-errors.md and docs/decisions/011-allowed-forms.md): checked only when the target sends it. */
  param?: string
  required_permission?: string
}

/** Envelope fields an implementation may leave out; when present they must be right. */
const OPTIONAL_FIELDS = new Set(['param'])

/** Fails unless the response is the given error status with these envelope fields. */
export function expectError(exchange: Exchange, status: number, expected: ExpectedError, why = ''): void {
  expectStatus(exchange, status, why)
  const error = (bodyOf(exchange)?.error ?? {}) as Record<string, unknown>
  for (const [field, want] of Object.entries(expected)) {
    if (want === undefined) continue
    const got = error[field]
    if (got === undefined && OPTIONAL_FIELDS.has(field)) continue
    const ok = Array.isArray(want) ? want.includes(got as string) : got === want
    if (!ok)
      fail(
        `error.${field} ${Array.isArray(want) ? `one of ${want.join(', ')}` : JSON.stringify(want)}${why ? ` ${why}` : ''}`,
        got === undefined ? `no error.${field}` : JSON.stringify(got),
        exchange,
      )
  }
}

/** The parsed JSON body as an object (fails when it is not one). */
export function jsonObject(exchange: Exchange): Record<string, unknown> {
  const body = bodyOf(exchange)
  if (!body || typeof body !== 'object' || Array.isArray(body))
    fail('a JSON object body', exchange.response.text.slice(0, 200) || '(empty body)', exchange)
  return body
}

/** The `data` array of a list response. */
export function listData(exchange: Exchange): Record<string, unknown>[] {
  const data = jsonObject(exchange).data
  if (!Array.isArray(data)) fail('a list body with a data array', typeof data, exchange)
  return data as Record<string, unknown>[]
}

/**
 * Waits for every one of `pending` (sent at the same time) and returns their values in order; when some
 * failed, throws what the first of them in order threw, not the first to fail in time, so that a failure
 * reads the same from run to run.
 */
export async function inOrder<T extends readonly unknown[]>(
  pending: readonly [...{ [K in keyof T]: Promise<T[K]> }],
): Promise<T> {
  const settled = await Promise.allSettled(pending)
  return settled.map((answer) => {
    if (answer.status === 'rejected') throw answer.reason
    return answer.value
  }) as unknown as T
}

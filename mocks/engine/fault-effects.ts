import { type ApiError, errors, type FieldError } from './api-error.ts'
import { type RateDecision, rateLimitHeaders } from './rate-limiter.ts'
import type { EngineResponse } from './types.ts'

/**
 * Where the mutation harness's faults change what the engine answers. Each fault is a named switch
 * that only tests turn on; gathering the answer-shaping ones here keeps the pipeline readable.
 */
export type Faults = ReadonlySet<string>

const JSON_TYPE = 'application/json; charset=utf-8'

/** A JSON response. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): EngineResponse {
  return { status, headers: { 'content-type': JSON_TYPE, ...headers }, body }
}

/**
 * The HTTP form of an `ApiError`. A v1 401 is exactly the spec's body (type, code, message): its
 * request id travels in the `Request-Id` header only.
 */
export function errorResponse(
  faults: Faults,
  error: ApiError,
  requestId: string,
  headers: Record<string, string> = {},
): EngineResponse {
  let status = error.status
  const body = error.body(error.status === 401 ? undefined : requestId)
  const extra = { ...error.headers }
  if (faults.size > 0) {
    if (error.status === 401 && faults.has('unauthenticated-404')) status = 404
    if (error.status === 401 && faults.has('wrong-401-code')) body.error.code = 'invalid_key'
    if (error.code === 'insufficient_permissions' && faults.has('403-without-required-permission'))
      delete body.error.required_permission
    if (faults.has('retry-after-missing')) delete extra['retry-after']
    if (faults.has('www-authenticate-missing')) delete extra['www-authenticate']
    if (error.status === 401 && faults.has('401-has-ratelimit-headers')) extra.ratelimit = '"hourly";r=0;t=0'
    if (faults.has('error-request-id-mismatch') && body.error.request_id)
      body.error.request_id = 'req_0mismatch'
    if (error.status === 422 && faults.has('422-without-errors')) delete body.error.errors
  }
  return json(status, body, { ...headers, ...extra })
}

/** The rate-limit headers of a decision. */
export function limitHeaders(faults: Faults, decision: RateDecision, nowMs: number): Record<string, string> {
  const headers = rateLimitHeaders(decision.windows, nowMs)
  if (faults.size === 0) return headers
  if (faults.has('ratelimit-remaining-off-by-one'))
    headers.ratelimit = headers.ratelimit?.replace(/r=(\d+)/g, (_, r) => `r=${Number(r) + 1}`) ?? ''
  if (faults.has('x-ratelimit-headers-missing')) delete headers['x-ratelimit-remaining']
  if (faults.has('malformed-ratelimit-header'))
    headers.ratelimit = headers.ratelimit?.replace(/;/g, ',') ?? ''
  return headers
}

/** The 429 of a refused decision. */
export function rateLimitedError(
  faults: Faults,
  decision: Extract<RateDecision, { admitted: false }>,
): ApiError {
  let { policy, retryAfter } = decision
  if (faults.has('429-wrong-policy')) policy = policy === 'burst' ? 'hourly' : 'burst'
  if (faults.has('retry-after-too-short')) retryAfter = Math.max(1, retryAfter - 1)
  return errors.rateLimited(policy, retryAfter)
}

/** The field errors of a body that the 422 reports. */
export function reportedFieldErrors(faults: Faults, fieldErrors: FieldError[]): FieldError[] {
  if (faults.size === 0) return fieldErrors
  const ignored = new Set<string>()
  if (faults.has('unknown-field-accepted')) ignored.add('unknown_field')
  if (faults.has('enum-unchecked')) ignored.add('enum')
  if (faults.has('range-unchecked')) for (const code of ['minimum', 'maximum']) ignored.add(code)
  return fieldErrors.filter((error) => !ignored.has(error.code))
}

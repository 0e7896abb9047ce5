import { ApiError, errors } from '../api-error.ts'
import type { Operation } from '../contract/router.ts'
import { rateLimitHeaders, type WindowState } from '../rate-limiter.ts'
import type { EngineResponse } from '../types.ts'

/** What an injected answer is built from. */
export interface InjectedAnswerInput {
  operation: Operation
  status: number
  /** Names what injected it (the scenario, or the `Prefer` header). */
  message: string
  requestId: string
  /** The rate-limit windows after this request was counted, and the time they were read at. */
  windows: readonly WindowState[]
  now: number
  /** The methods the operation's path documents (`Allow` of a 405). */
  allow: readonly string[]
}

/** The `409` code each operation documents first; any other `POST` conflicts on its idempotency key. */
const CONFLICT_CODES: Record<string, string> = {
  inviteTeamMember: 'member_already_exists',
  updateTeamMember: 'owner_role_immutable',
  removeTeamMember: 'cannot_remove_owner',
}

/** The 5xx failures of the error table (docs/decisions/007-errors.md, `v1.yaml`'s description); 503 has its own case. */
const SERVER_CODES: Record<number, string> = {
  500: 'internal_error',
  502: 'bad_gateway',
  504: 'gateway_timeout',
}

/** The error of an injected `status`, shaped as the contract documents that status for the operation. */
function injectedError(operation: Operation, status: number, message: string, allow: readonly string[]) {
  const pathParam = /\{([^}]+)\}/.exec(operation.path)?.[1]
  switch (status) {
    case 400:
      return new ApiError(400, 'invalid_request_error', 'invalid_parameter', message)
    case 401:
      return errors.unauthenticated(message)
    case 403: {
      const scope = operation.permissions[0]
      return scope
        ? new ApiError(403, 'permission_error', 'insufficient_permissions', message, {
            required_permission: scope,
          })
        : errors.keyRestricted(message)
    }
    case 404:
      return pathParam
        ? new ApiError(404, 'not_found_error', 'resource_not_found', message, { param: pathParam })
        : new ApiError(404, 'not_found_error', 'route_not_found', message)
    case 405:
      return new ApiError(
        405,
        'invalid_request_error',
        'method_not_allowed',
        message,
        {},
        {
          allow: allow.join(', '),
        },
      )
    case 409:
      return errors.conflict(CONFLICT_CODES[operation.operationId] ?? 'idempotency_key_reused', message)
    case 413:
      return new ApiError(413, 'invalid_request_error', 'payload_too_large', message)
    case 415:
      return new ApiError(415, 'invalid_request_error', 'unsupported_media_type', message)
    case 422:
      return new ApiError(422, 'validation_error', 'validation_failed', message, {
        param: '',
        errors: [{ param: '', code: 'invalid', message }],
      })
    case 503:
      return new ApiError(503, 'api_error', 'service_unavailable', message, {}, { 'retry-after': '1' })
    default:
      return new ApiError(status, 'api_error', SERVER_CODES[status] ?? 'internal_error', message)
  }
}

/**
 * A 429 whose headers agree with its body: the `burst` window reported exhausted (`r=0`), `Retry-After` and
 * `error.retry_after` the largest `t` of the exhausted windows (`hourly` on a tie), as a real 429 has them.
 */
function injectedRateLimit(input: InjectedAnswerInput): EngineResponse {
  // This request was counted: every window it is in has a `t` of at least 1.
  const windows = input.windows.map((w) => (w.policy === 'burst' ? { ...w, remaining: 0 } : w))
  let decisive: WindowState | undefined
  for (const window of windows)
    if (window.remaining === 0 && (!decisive || window.reset > decisive.reset)) decisive = window
  const policy = decisive?.policy ?? 'burst'
  const retryAfter = decisive?.reset ?? 1
  const error = new ApiError(
    429,
    'rate_limit_error',
    'rate_limit_exceeded',
    input.message,
    { policy, retry_after: retryAfter },
    { 'retry-after': String(retryAfter) },
  )
  return error.toResponse(input.requestId, rateLimitHeaders(windows, input.now))
}

/**
 * The answer a scenario (or `Prefer: code=`) puts in place of the operation's: the status with the contract's
 * error envelope for it, the request's rate-limit headers, and the message naming what injected it.
 */
export function injectedAnswer(input: InjectedAnswerInput): EngineResponse {
  if (input.status === 429) return injectedRateLimit(input)
  const error = injectedError(input.operation, input.status, input.message, input.allow)
  return error.toResponse(input.requestId, rateLimitHeaders(input.windows, input.now))
}

import { json } from './json-answer.ts'
import type { EngineResponse } from './types.ts'

/** The error types of the v1 envelope (docs/decisions/007-errors.md). */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'validation_error'
  | 'rate_limit_error'
  | 'api_error'

export interface FieldError {
  param: string
  code: string
  message: string
}

export interface ErrorFields {
  param?: string
  required_permission?: string
  policy?: string
  retry_after?: number
  errors?: FieldError[]
}

/**
 * An API error as a value: it knows its status, its envelope, its extra headers, and its HTTP form
 * (`toResponse`, the one place an error becomes an answer, as hono's `HTTPException.getResponse()`).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    readonly fields: ErrorFields = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }

  /** The `{ error: {...} }` envelope, with `request_id` when one is given. */
  body(requestId?: string): { error: Record<string, unknown> } {
    return {
      error: {
        type: this.type,
        code: this.code,
        message: this.message,
        ...this.fields,
        ...(requestId !== undefined ? { request_id: requestId } : {}),
      },
    }
  }

  /**
   * The error's answer: its envelope, the headers the request earned (`headers`, e.g. the rate limit's) and
   * its own. A v1 401 is exactly the spec's body (type, code, message): its request id travels in the
   * `Request-Id` header only.
   */
  toResponse(requestId: string, headers: Record<string, string> = {}): EngineResponse {
    const body = this.body(this.status === 401 ? undefined : requestId)
    return json(this.status, body, { ...headers, ...this.headers })
  }
}

export const errors = {
  invalidJson: (message: string) => new ApiError(400, 'invalid_request_error', 'invalid_json', message),
  invalidParameter: (param: string, message: string) =>
    new ApiError(400, 'invalid_request_error', 'invalid_parameter', message, { param }),
  invalidCursor: (param: string, message: string) =>
    new ApiError(400, 'invalid_request_error', 'invalid_cursor', message, { param }),
  parameterConflict: (param: string, message: string) =>
    new ApiError(400, 'invalid_request_error', 'parameter_conflict', message, { param }),
  /**
   * 401 with the spec's body. `WWW-Authenticate` follows RFC 6750: no error code when the request
   * carried no credentials, `error="invalid_token"` when it carried a key that does not authenticate.
   */
  unauthenticated: (message: string, credentials: 'none' | 'invalid' = 'invalid') =>
    new ApiError(
      401,
      'authentication_error',
      'invalid_api_key',
      message,
      {},
      {
        'www-authenticate':
          credentials === 'none' ? 'Bearer realm="api"' : 'Bearer realm="api", error="invalid_token"',
      },
    ),
  missingPermission: (scope: string) =>
    new ApiError(
      403,
      'permission_error',
      'insufficient_permissions',
      `This API key lacks the permission '${scope}' required for this request.`,
      { required_permission: scope },
    ),
  keyRestricted: (message: string) => new ApiError(403, 'permission_error', 'key_restricted', message),
  resourceNotFound: (kind: string, id: string, param?: string) =>
    new ApiError(
      404,
      'not_found_error',
      'resource_not_found',
      `No ${kind} with id '${id}'.`,
      param ? { param } : {},
    ),
  routeNotFound: (method: string, path: string) =>
    new ApiError(404, 'not_found_error', 'route_not_found', `Unrecognized request URL (${method} ${path}).`),
  methodNotAllowed: (method: string, allow: string[]) =>
    new ApiError(
      405,
      'invalid_request_error',
      'method_not_allowed',
      `Method ${method} is not allowed here; allowed: ${allow.join(', ')}.`,
      {},
      { allow: allow.join(', ') },
    ),
  conflict: (code: string, message: string, param?: string) =>
    new ApiError(409, 'conflict_error', code, message, param ? { param } : {}),
  payloadTooLarge: (limitBytes: number) =>
    new ApiError(
      413,
      'invalid_request_error',
      'payload_too_large',
      `The request body exceeds the limit of ${limitBytes} bytes.`,
    ),
  unsupportedMediaType: (contentType: string) =>
    new ApiError(
      415,
      'invalid_request_error',
      'unsupported_media_type',
      `Request bodies must be application/json, not '${contentType || 'none'}'.`,
    ),
  validationFailed: (fieldErrors: FieldError[]) =>
    new ApiError(
      422,
      'validation_error',
      'validation_failed',
      fieldErrors.length === 1 && fieldErrors[0]
        ? `Invalid request body: ${fieldErrors[0].message}`
        : `Invalid request body: ${fieldErrors.length} errors.`,
      { param: fieldErrors[0]?.param, errors: fieldErrors },
    ),
  rateLimited: (policy: string, retryAfter: number) =>
    new ApiError(
      429,
      'rate_limit_error',
      'rate_limit_exceeded',
      `Rate limit exceeded for the ${policy} window; retry after ${retryAfter} seconds.`,
      { policy, retry_after: retryAfter },
      { 'retry-after': String(retryAfter) },
    ),
  internal: (message: string) => new ApiError(500, 'api_error', 'internal_error', message),
}

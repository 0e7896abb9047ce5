import type { ApiError } from './api-error.ts'
import type { EngineResponse } from './types.ts'

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
  error: ApiError,
  requestId: string,
  headers: Record<string, string> = {},
): EngineResponse {
  const body = error.body(error.status === 401 ? undefined : requestId)
  return json(error.status, body, { ...headers, ...error.headers })
}

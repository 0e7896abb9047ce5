import type { EngineRequest, EngineResponse } from '../../../mocks/engine/types.ts'
import type { RequestHandler } from '../../../mocks/server/http-server.ts'

/** A fault of an implementation, written as a change to what the correct mock is asked or answers. */
export interface Fault {
  /** Rewrites the request before the mock sees it (e.g. drops a header the implementation ignores). */
  request?: (request: EngineRequest) => EngineRequest
  /** Rewrites the mock's answer (a copy: the mock's own objects are never touched). */
  response?: (response: EngineResponse, request: EngineRequest) => EngineResponse
}

type ErrorBody = { error: Record<string, unknown> }

const hasError = (body: unknown): body is ErrorBody =>
  typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'object'

/** Applies `fault` around `handler`: the behaviour of a faulty implementation, built from the correct one. */
export function faultyHandler(handler: RequestHandler, fault: Fault): RequestHandler {
  return {
    async handle(request) {
      const sent = fault.request ? fault.request(structuredClone(request)) : request
      const response = await handler.handle(sent)
      return fault.response ? fault.response(structuredClone(response), sent) : response
    },
    changes: handler.changes ? () => handler.changes?.() ?? 0 : undefined,
  }
}

/** Rewrites the error object of error answers that `when` selects. */
function onErrors(
  when: (status: number) => boolean,
  change: (error: Record<string, unknown>) => void,
): Fault {
  return {
    response(response) {
      if (when(response.status) && hasError(response.body)) change(response.body.error)
      return response
    },
  }
}

/**
 * Faults of kinds the reliability checks must notice, none of them a switch in the engine: each wraps
 * the correct mock, the way a proxy or a faulty rewrite of it would behave.
 */
export const faults = {
  /** A 401 with an error code outside the spec's (`invalid_key` for `invalid_api_key`). */
  wrong401Code: onErrors(
    (status) => status === 401,
    (error) => {
      error.code = 'invalid_key'
    },
  ),
  /** `error.request_id` that is not the response's `Request-Id`. */
  requestIdMismatch: onErrors(
    (status) => status !== 401,
    (error) => {
      if (typeof error.request_id === 'string') error.request_id = 'req_0mismatch'
    },
  ),
  /** No `Request-Id` header. */
  requestIdMissing: {
    response(response) {
      delete response.headers['request-id']
      return response
    },
  },
  /** A 422 without its `errors[]`. */
  validationWithoutErrors: onErrors(
    (status) => status === 422,
    (error) => {
      delete error.errors
    },
  ),
} satisfies Record<string, Fault>

/**
 * One request more than the quota admitted: the first 429 of each key becomes the 200 the last
 * admitted request of that key got.
 */
export function admitsOneMore(): Fault {
  const last = new Map<string, EngineResponse>()
  const forgiven = new Set<string>()
  return {
    response(response, request) {
      const key = request.headers.authorization ?? ''
      if (response.status === 200) last.set(key, structuredClone(response))
      const admitted = last.get(key)
      if (response.status !== 429 || forgiven.has(key) || !admitted) return response
      forgiven.add(key)
      return admitted
    },
  }
}

/** `Idempotency-Key` ignored: every request is handled as a new one. */
export const ignoresIdempotencyKeys: Fault = {
  request(request) {
    delete request.headers['idempotency-key']
    return request
  },
}

/**
 * A revoked key still accepted, as an authentication cache that outlives revocation would do: a 401
 * for a key that was admitted before becomes the answer it got last.
 */
export function acceptsRevokedKeys(): Fault {
  const admitted = new Map<string, EngineResponse>()
  return {
    response(response, request) {
      const key = request.headers.authorization
      if (key === undefined) return response
      const cached = admitted.get(`${key} ${request.method} ${request.url}`)
      if (response.status === 401 && cached) return structuredClone(cached)
      if (response.status < 400)
        admitted.set(`${key} ${request.method} ${request.url}`, structuredClone(response))
      return response
    },
  }
}

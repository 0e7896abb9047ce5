import { errors } from '../api-error.ts'
import type { Operation } from '../contract/router.ts'
import type { EngineRequest } from '../types.ts'
import { upperCaseMethod } from '../upper-case-method.ts'

/** What every step of a request's pipeline reads and fills in, whichever API the request is for. */
export interface RequestContext {
  readonly request: EngineRequest
  readonly url: URL
  readonly requestId: string
  /** The path inside the API, after its prefix (`/agents/agt_1` of `/v1/agents/agt_1`). */
  readonly path: string
  /** Headers every answer to this request carries from here on (the rate limit's, once it was counted). */
  headers: Record<string, string>
  /** The contract's operation, once routed. */
  operation?: Operation
  /** The path parameters of the operation. */
  params: Record<string, string>
  /** The query, validated against the operation's parameters (defaults filled in). */
  query: Record<string, unknown>
  /** The parsed JSON body, or undefined when the operation takes none or none was sent. */
  body: unknown
}

/** The context's operation: every step after routing may rely on it. */
export function routed(ctx: RequestContext): { operation: Operation; params: Record<string, string> } {
  if (!ctx.operation)
    throw errors.internal('A step that needs the operation ran before the request was routed.')
  return { operation: ctx.operation, params: ctx.params }
}

/** The upper-case method of a request. */
export const methodOf = (ctx: RequestContext) => upperCaseMethod(ctx.request.method)

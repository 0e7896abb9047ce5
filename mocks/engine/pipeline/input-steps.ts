import { errors } from '../api-error.ts'
import type { Validators } from '../contract/validators.ts'
import { assertJsonDepth } from '../json-depth.ts'
import { bodyLimitOf, exceedsBodyLimit, parseJsonBody } from '../request-body.ts'
import type { Step } from './compose.ts'
import { routed } from './request-context.ts'

/** 400 for a query the operation's parameters refuse; `starting_after` with `ending_before` is a conflict. */
export function readQueryStep(validators: Validators): Step {
  return (ctx, next) => {
    const { operation } = routed(ctx)
    const query = validators.query(operation.operationId, operation.parameters, ctx.url.searchParams)
    if (!query.ok) throw errors.invalidParameter(query.param, query.message)
    const { starting_after, ending_before } = query.values
    if (starting_after !== undefined && ending_before !== undefined)
      throw errors.parameterConflict(
        'ending_before',
        'starting_after and ending_before cannot be used together.',
      )
    ctx.query = query.values
    return next()
  }
}

/**
 * 413 for a body over the limit (whether or not the operation takes a body: a 413 must mean that nothing
 * happened), then, where the operation takes one, 400 for bytes that are not UTF-8, 415 for a body that is not
 * JSON, 400 for one that does not parse or nests too deep.
 */
export const readBodyStep: Step = (ctx, next) => {
  const { request } = ctx
  // The limit is looked up only where a body is there to judge (most requests have none).
  const limit = () => bodyLimitOf(request.method, ctx.url.pathname)
  // A server that stops reading at the limit says so (`bodyTooLarge`); an adapter in the page or the process
  // (MSW, createMockApi) hands the body over whole, and a body it holds is measured here.
  if (request.bodyTooLarge || (request.body !== null && exceedsBodyLimit(request.body, limit())))
    throw errors.payloadTooLarge(limit())
  const { operation } = routed(ctx)
  if (operation.hasBody) {
    if (request.bodyNotUtf8) throw errors.invalidJson('The request body is not valid UTF-8.')
    ctx.body = parseJsonBody(request.body, request.headers['content-type'], operation.bodyRequired, limit())
    if (ctx.body !== undefined) assertJsonDepth(request.body)
  }
  return next()
}

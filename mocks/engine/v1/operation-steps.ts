import { errors } from '../api-error.ts'
import type { Clock } from '../clock.ts'
import { json } from '../json-answer.ts'
import type { Step } from '../pipeline/compose.ts'
import { routed } from '../pipeline/request-context.ts'
import type { Handlers, OperationContext } from '../resources/operation-handler.ts'
import type { EngineResponse } from '../types.ts'
import { caller, type V1Context } from './v1-context.ts'

/** Base URL assumed for `Location` when the transport does not say (the mock's default address). */
const DEFAULT_BASE_URL = 'http://127.0.0.1:4010/v1'

/** What an operation's handler reads: the caller, its data, the request's validated input (built once). */
function operationContext(ctx: V1Context, clock: Clock): OperationContext {
  if (ctx.handlerContext) return ctx.handlerContext
  const { key, account } = caller(ctx)
  if (!ctx.data) throw errors.internal('The operation ran before its account data was looked up.')
  const { request, url } = ctx
  const baseUrl =
    request.baseUrl ?? (/^https?:\/\//.test(request.url) ? `${url.origin}/v1` : DEFAULT_BASE_URL)
  ctx.handlerContext = {
    account,
    key: key.record,
    data: ctx.data,
    params: ctx.params,
    query: ctx.query,
    body: ctx.body,
    clock,
    baseUrl,
  }
  return ctx.handlerContext
}

/** The operations' behaviour, by operationId: 404 for the addressed resource, then the run. */
export function operationSteps(handlers: Handlers, clock: Clock) {
  const handlerOf = (ctx: V1Context) => {
    const { operationId } = routed(ctx).operation
    const handler = handlers[operationId]
    if (!handler) throw errors.internal(`No behaviour is defined for ${operationId}.`)
    return handler
  }

  /** 404: the addressed resource, before the body is judged. */
  const load: Step<V1Context> = (ctx, next) => {
    ctx.resource = handlerOf(ctx).load?.(operationContext(ctx, clock))
    return next()
  }

  /** The operation itself; its result is kept for an idempotent replay. */
  const run: Step<V1Context> = (ctx) => {
    ctx.result = handlerOf(ctx).run(operationContext(ctx, clock), ctx.resource)
    return resultAnswer(ctx)
  }

  return { load, run }
}

/** The answer of the operation's result, with the headers the request earned. */
export function resultAnswer(ctx: V1Context): EngineResponse {
  const result = ctx.result
  if (!result) throw errors.internal('The operation gave no result.')
  const headers = result.headers ? Object.assign({}, ctx.headers, result.headers) : ctx.headers
  return json(result.status, result.body, headers)
}

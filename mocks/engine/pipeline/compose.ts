import { ApiError } from '../api-error.ts'
import type { EngineResponse } from '../types.ts'
import type { RequestContext } from './request-context.ts'

/** Runs the rest of the pipeline and gives its answer (an `ApiError` thrown there arrives as its answer). */
export type Next = () => EngineResponse

/**
 * One step of a request's pipeline: it may answer itself (or throw an `ApiError`), or call `next` and return,
 * or change, the answer of the steps after it. Synchronous: no other request runs while one is handled, and
 * `next` is called, if at all, before the step returns.
 */
export type Step<C extends RequestContext = RequestContext> = (ctx: C, next: Next) => EngineResponse

/**
 * Composes steps into one handler (hono's `compose`, synchronous). An `ApiError` thrown at any depth becomes
 * its answer there, with the headers the request has earned so far (`ctx.headers`), so that the steps around
 * it (a scenario's mark, the contract check, the rate-limit headers) see an answer, never an exception.
 *
 * Each step's `next` is made once, not per request: a request runs from start to end before another starts,
 * so the context of the request under way is kept here (and put back after a request handled inside a step).
 */
export function compose<C extends RequestContext>(steps: readonly Step<C>[]): (ctx: C) => EngineResponse {
  let current: C | undefined
  const nexts: Next[] = steps.map((_, index) => () => at(index + 1))

  function at(index: number): EngineResponse {
    const step = steps[index]
    if (!step) throw new Error('The pipeline ended without an answer: its last step must answer.')
    const ctx = current as C
    try {
      return step(ctx, nexts[index] as Next)
    } catch (error) {
      if (error instanceof ApiError) return error.toResponse(ctx.requestId, ctx.headers)
      throw error
    }
  }

  return function handle(ctx: C): EngineResponse {
    const outer = current
    current = ctx
    try {
      return at(0)
    } finally {
      current = outer
    }
  }
}

import type { Step } from '../pipeline/compose.ts'
import { routed } from '../pipeline/request-context.ts'
import type { InterceptInput, Interception } from '../scenarios/scenario-interceptor.ts'
import { caller, type V1Context } from './v1-context.ts'

/**
 * Scenarios (docs/decisions/012-scenarios.md): after the route and before the operation, a scenario or a
 * `Prefer: code=` header may answer in place of the operation (which then does not run), or mark and delay
 * its real answer.
 */
export function scenarioStep(
  intercept: (input: InterceptInput) => Interception | undefined,
): Step<V1Context> {
  return (ctx, next) => {
    const interception = intercept({
      request: ctx.request,
      operation: routed(ctx).operation,
      key: caller(ctx).key.record,
      requestId: ctx.requestId,
      windows: ctx.windows,
      now: ctx.now,
    })
    if (!interception) return next()
    ctx.scenario = interception.scenario
    return interception.answer ?? interception.mark(next())
  }
}

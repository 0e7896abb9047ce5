import { errors } from '../api-error.ts'
import type { Validators } from '../contract/validators.ts'
import type { Step } from './compose.ts'
import { routed } from './request-context.ts'

/** 422 for a body the contract's schema refuses, every problem listed. */
export function validateBodyStep(validators: Validators): Step {
  return (ctx, next) => {
    const { operation } = routed(ctx)
    if (ctx.body !== undefined) {
      const problems = validators.body(operation.operationId, operation.object, ctx.body)
      if (problems.length > 0) throw errors.validationFailed(problems)
    }
    return next()
  }
}

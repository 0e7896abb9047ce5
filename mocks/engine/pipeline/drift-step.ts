import { errors } from '../api-error.ts'
import { contractDrift, type DriftCheck } from '../contract/contract-drift.ts'
import type { Validators } from '../contract/validators.ts'
import type { Step } from './compose.ts'
import { routed } from './request-context.ts'

/**
 * With `checkResponses`, an answer of the operation (success or error) that its contract does not allow
 * becomes a 500 naming the drift, rather than a silently wrong answer.
 */
export function checkAnswerStep(validators: Validators, check: DriftCheck): Step {
  return (ctx, next) => {
    const response = next()
    const drift = contractDrift(validators, check, routed(ctx).operation, response)
    if (drift !== undefined) throw errors.internal(drift)
    return response
  }
}

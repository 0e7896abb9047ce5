import type { EngineResponse } from '../types.ts'
import type { Operation } from './router.ts'
import type { Validators } from './validators.ts'

/** Checking answers against their contract (on in tests), and who is told of a drift. */
export interface DriftCheck {
  checkResponses?: boolean
  onContractViolation?: (message: string) => void
}

/**
 * What is wrong with an operation's answer against its contract, as one message naming the operation and up to
 * five problems (the listener is told of it), or undefined when the answer is allowed or checking is off.
 */
export function contractDrift(
  validators: Validators,
  check: DriftCheck,
  operation: Operation,
  response: EngineResponse,
): string | undefined {
  if (!check.checkResponses) return undefined
  // A JSON answer the engine wrote as bytes itself (a capsule) is checked as the value it holds.
  const body =
    response.body instanceof Uint8Array ? JSON.parse(new TextDecoder().decode(response.body)) : response.body
  const problems = validators.response(operation.operationId, operation.object, response.status, body)
  if (problems.length === 0) return undefined
  const message = `Contract drift in ${operation.operationId} (${response.status}): ${problems.slice(0, 5).join('; ')}`
  check.onContractViolation?.(message)
  return message
}

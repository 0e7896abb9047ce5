import type { ContractCheck } from '../checks/types.ts'

/** The failure of a check, ready to print: no key value appears in any field. */
export interface FailureReport {
  expected: string
  actual: string
  /** The request and response as text (keys redacted), when an exchange shows the failure. */
  request?: string
  response?: string
  /** A curl command that reproduces the request, the key replaced by `$VOICE_API_KEY` or redacted. */
  curl?: string
}

export type OutcomeStatus = 'passed' | 'failed' | 'skipped' | 'not-applicable'

/** What happened to one check. */
export interface CheckOutcome {
  check: ContractCheck
  status: OutcomeStatus
  /** Why it was skipped or is not applicable. */
  reason?: string
  failure?: FailureReport
  notes: string[]
  durationMs: number
  requests: number
}

/** What teardown did. */
export interface TeardownReport {
  removed: number
  problems: string[]
  notes: string[]
}

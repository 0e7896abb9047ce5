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
  /** Exploration: the shrunk sequence as numbered steps (request, target's answer, model's answer). */
  steps?: string
  /** Exploration: the same sequence as a runnable shell script (keys in variables, never their values). */
  script?: string
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
  /** Requests the check sent to the target. */
  requests: number
  /** Requests of the check answered from the run's cache (an earlier check sent the same one). */
  cacheHits: number
  /** The check lost the connection to the target (no HTTP answer at all). */
  unreachable?: boolean
}

/** A long check's progress line (exploration prints its seed and how far it got). */
export interface ProgressEvent {
  check: ContractCheck
  message: string
}

/** What teardown did. */
export interface TeardownReport {
  removed: number
  problems: string[]
  notes: string[]
}

import type { CheckOutcome, FailureReport, OutcomeStatus } from '../runner/outcome.ts'
import { formatFailure } from './format-failure.ts'

/** One check's line in a report, whichever runner produced it. */
export interface ReportEntry {
  id: string
  /** The area it is reported under: a suite `Area` or `setup`; another kit's reports have areas of their own. */
  area: string
  group: string
  title: string
  status: OutcomeStatus
  reason?: string
  /** The formatted failure: expected, actual, request, response, curl (keys redacted). */
  failure?: string
  /** The same failure in parts, for reports that lay it out (HTML). */
  details?: FailureReport
  durationMs: number
  /** Requests the check sent to the target. */
  requests: number
  /** Requests of the check answered from the run's cache. */
  cacheHits?: number
  /** A failed check's capsule of the mock before it ran: its file, beside the reports. */
  capsule?: string
}

/** A check's outcome as a report entry. */
export function entryOf(outcome: CheckOutcome): ReportEntry {
  const { check } = outcome
  return {
    id: check.id,
    area: check.area,
    group: check.group,
    title: check.title,
    status: outcome.status,
    reason: outcome.reason,
    failure: outcome.failure ? formatFailure(outcome.failure) : undefined,
    details: outcome.failure,
    durationMs: outcome.durationMs,
    requests: outcome.requests,
    cacheHits: outcome.cacheHits,
  }
}

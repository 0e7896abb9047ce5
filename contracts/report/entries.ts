import type { Area } from '../checks/types.ts'
import type { OutcomeStatus } from '../runner/outcome.ts'

/** One check's line in a report, whichever runner produced it. */
export interface ReportEntry {
  id: string
  area: Area | 'setup'
  group: string
  title: string
  status: OutcomeStatus
  reason?: string
  /** The formatted failure: expected, actual, request, response, curl (keys redacted). */
  failure?: string
  durationMs: number
  requests: number
}

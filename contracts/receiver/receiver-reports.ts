import { toHtml } from '../report/html.ts'
import { toJUnit } from '../report/junit.ts'
import { formatSummary } from '../report/summary.ts'
import { RECEIVER_AREAS } from './receiver-checks.ts'
import type { ReceiverTestResult } from './test-receiver.ts'

/** The first line of every receiver report. */
export const receiverHeader = (result: Pick<ReceiverTestResult, 'url'>) =>
  `Webhook receiver test against ${result.url}`

/** The run as readable text: counts per area, then every failure with its delivery as a curl command. */
export function formatReceiverSummary(result: ReceiverTestResult): string {
  return formatSummary(result.entries, receiverHeader(result), result.durationMs, {}, RECEIVER_AREAS)
}

/** The run as JUnit XML: one suite per area, one test case per check. */
export function toReceiverJUnit(result: ReceiverTestResult): string {
  return toJUnit(result.entries, 'voice-api-kit webhook receiver test', result.durationMs, RECEIVER_AREAS)
}

/** The run as one self-contained HTML page. */
export function toReceiverHtml(result: ReceiverTestResult, generatedAt = new Date()): string {
  return toHtml({
    title: 'Webhook receiver report',
    header: receiverHeader(result),
    entries: result.entries,
    durationMs: result.durationMs,
    areas: RECEIVER_AREAS,
    generatedAt,
  })
}

/**
 * `voice-api-kit/contracts`: the reusable contract (conformance) suite of the v1 API, with no test framework.
 *
 * ```ts
 * import { runChecks, formatSummary, entryOf } from 'voice-api-kit/contracts'
 * const result = await runChecks({ baseUrl: 'https://api.example.com/v1', secretKey: process.env.VOICE_API_KEY })
 * ```
 * In a Vitest project, `defineContractSuite` comes from `voice-api-kit/contracts/vitest`.
 *
 * It also grades webhook receivers: `testReceiver({ url }, 'whsec_...')` (see `contracts/receiver/`).
 */
export { allChecks, selectChecks } from './checks/index.ts'
export { AREAS, type Area, type CheckContext, type ContractCheck, type Need } from './checks/types.ts'
export { type Contract, createContract } from './contract/contract.ts'
export type { WaitEvent } from './http/pacer.ts'
export { readRateLimitHeaders } from './http/rate-limit-headers.ts'
export {
  type Expectation,
  RECEIVER_AREAS,
  type ReceiverArea,
} from './receiver/receiver-checks.ts'
export { formatReceiverSummary, toReceiverHtml, toReceiverJUnit } from './receiver/receiver-reports.ts'
export type { FetchHandler, ReceiverTarget } from './receiver/receiver-target.ts'
export {
  ReceiverConfigError,
  type ReceiverTestResult,
  ReceiverUnreachableError,
  type TestReceiverOptions,
  testReceiver,
} from './receiver/test-receiver.ts'
export type { AreaTitles } from './report/area-titles.ts'
export { entryOf, type ReportEntry } from './report/entries.ts'
export { formatFailure } from './report/format-failure.ts'
export { type HtmlReportInput, toHtml } from './report/html.ts'
export { toJUnit } from './report/junit.ts'
export { formatSummary, type RunFigures } from './report/summary.ts'
export { type Coverage, type CoverageRow, coverageFigure } from './runner/coverage.ts'
export type { CheckOutcome, FailureReport, TeardownReport } from './runner/outcome.ts'
export { type RunOptions, type RunResult, runChecks } from './runner/run-checks.ts'
export {
  ConfigError,
  openSession,
  type RunStats,
  type Session,
  type SessionOptions,
} from './runner/session.ts'
export type { Plan, ScopedKey, TargetConfig } from './target/target.ts'

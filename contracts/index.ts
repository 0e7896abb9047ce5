/**
 * `voice-api-kit/contracts`: the reusable contract (conformance) suite of the v1 API.
 *
 * In a Vitest project (`voice-api-kit/contracts/vitest`; Vitest is an optional peer, needed only there):
 * ```ts
 * import { defineContractSuite } from 'voice-api-kit/contracts/vitest'
 * defineContractSuite({ baseUrl: process.env.VOICE_API_BASE_URL!, secretKey: process.env.VOICE_API_KEY })
 * ```
 * Without Vitest (scripts, harnesses): `runChecks(target, options)`.
 */
export { allChecks, selectChecks } from './checks/index.ts'
export { AREAS, type Area, type CheckContext, type ContractCheck, type Need } from './checks/types.ts'
export { type Contract, createContract } from './contract/contract.ts'
export { readRateLimitHeaders } from './http/rate-limit-headers.ts'
export { formatFailure } from './report/format-failure.ts'
export { toJUnit } from './report/junit.ts'
export { formatSummary } from './report/summary.ts'
export type { CheckOutcome, FailureReport, TeardownReport } from './runner/outcome.ts'
export { type RunOptions, type RunResult, runChecks } from './runner/run-checks.ts'
export { ConfigError, openSession, type Session } from './runner/session.ts'
export type { Plan, ScopedKey, TargetConfig } from './target/target.ts'

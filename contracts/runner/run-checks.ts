import { allChecks, selectChecks } from '../checks/index.ts'
import type { ContractCheck } from '../checks/types.ts'
import type { TargetConfig } from '../target/target.ts'
import type { Coverage } from './coverage.ts'
import type { CheckOutcome, TeardownReport } from './outcome.ts'
import { scheduleChecks } from './schedule-checks.ts'
import { openSession, type RunStats, type Session, type SessionOptions } from './session.ts'

/** Checks a provisioned run runs at the same time unless the target says otherwise (`concurrency`). */
export const DEFAULT_CONCURRENCY = 16

/** Options of a plain (non-Vitest) run. */
export interface RunOptions extends SessionOptions {
  /** Stop at the first failing check (the mutation harness: a mutant is killed by one failure). */
  bail?: boolean
  /** Run these checks instead of the whole suite. */
  checks?: ContractCheck[]
  /** Only the checks this keeps. */
  filter?: (check: ContractCheck) => boolean
  /** Called once the session is open (keys ready, plan and rate limit known), before the first check. */
  onOpen?: (session: Session) => void
  /** Called after each check. */
  onOutcome?: (outcome: CheckOutcome) => void
}

export interface RunResult {
  outcomes: CheckOutcome[]
  teardown: TeardownReport
  durationMs: number
  /** Requests sent, answers shared from the run's cache, waits. */
  stats: RunStats
  /** The documented (operation, status) pairs the run's answers exercised. */
  coverage: Coverage
  /** Checks that did not run because the run stopped (the target stopped answering), with the reason. */
  aborted?: { reason: string; notRun: ContractCheck[] }
}

/**
 * Runs the suite's checks as plain async functions, without Vitest: what the `voice-api-kit contract`
 * command and the mutation harness run. Opening the session checks that the target answers and accepts the
 * key (a `ConfigError` otherwise); teardown always runs. A provisioned run runs checks at the same time, each
 * lane on an account of its own (`concurrency`), and the checks that move the mock's clock alone; outcomes
 * come in the suite's order however they ran. When a check loses the connection and the target does not
 * answer again, the run stops there instead of failing every remaining check the same way.
 */
export async function runChecks(target: TargetConfig, options: RunOptions = {}): Promise<RunResult> {
  const started = performance.now()
  const session = await openSession(target, options)
  options.onOpen?.(session)
  const checks = (options.checks ?? selectChecks(allChecks(session.contract), target.areas)).filter(
    options.filter ?? (() => true),
  )
  let scheduled: Awaited<ReturnType<typeof scheduleChecks>>
  try {
    const beside = checks.filter((check) => !check.exclusive).length
    const wanted = target.provision === 'mock' ? (target.concurrency ?? DEFAULT_CONCURRENCY) : 1
    const lanes = await session.openLanes(Math.min(wanted, beside))
    scheduled = await scheduleChecks(session, checks, {
      lanes,
      bail: options.bail,
      onOutcome: options.onOutcome,
    })
  } catch (error) {
    await session.close()
    throw error
  }
  const teardown = await session.close()
  return {
    outcomes: scheduled.outcomes,
    teardown,
    durationMs: performance.now() - started,
    stats: session.stats(),
    coverage: session.coverage(),
    aborted: scheduled.aborted,
  }
}

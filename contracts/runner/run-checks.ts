import { allChecks, selectChecks } from '../checks/index.ts'
import type { ContractCheck } from '../checks/types.ts'
import type { TargetConfig } from '../target/target.ts'
import type { CheckOutcome, TeardownReport } from './outcome.ts'
import { openSession } from './session.ts'

/** Options of a plain (non-Vitest) run. */
export interface RunOptions {
  /** Stop at the first failing check (the mutation harness: a mutant is killed by one failure). */
  bail?: boolean
  /** Run these checks instead of the whole suite. */
  checks?: ContractCheck[]
  /** Only the checks this keeps. */
  filter?: (check: ContractCheck) => boolean
  /** Called after each check. */
  onOutcome?: (outcome: CheckOutcome) => void
}

export interface RunResult {
  outcomes: CheckOutcome[]
  teardown: TeardownReport
  durationMs: number
}

/**
 * Runs the suite's checks as plain async functions, without Vitest: the same checks the Vitest suite
 * registers, for the mutation harness and for programmatic use. Teardown always runs.
 */
export async function runChecks(target: TargetConfig, options: RunOptions = {}): Promise<RunResult> {
  const started = performance.now()
  const session = await openSession(target)
  const checks = (options.checks ?? selectChecks(allChecks(session.contract), target.areas)).filter(
    options.filter ?? (() => true),
  )
  const outcomes: CheckOutcome[] = []
  try {
    for (const check of checks) {
      const outcome = await session.run(check)
      outcomes.push(outcome)
      options.onOutcome?.(outcome)
      if (options.bail && outcome.status === 'failed') break
    }
  } catch (error) {
    await session.close()
    throw error
  }
  const teardown = await session.close()
  return { outcomes, teardown, durationMs: performance.now() - started }
}

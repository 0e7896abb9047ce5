import type { CheckOutcome } from '../../contracts/runner/outcome.ts'
import { runChecks } from '../../contracts/runner/run-checks.ts'
import { createMockPlatform, type MockPlatform } from '../../mocks/platform.ts'
import { engineFetch } from './engine-fetch.ts'

const BASE_URL = 'http://mutant.test/v1'

/** What became of one mutant: killed (by which check) or survived. */
export interface MutantResult {
  fault: string
  killed: boolean
  /** The first check that failed against the mutant. */
  killedBy?: string
  detail?: string
  durationMs: number
}

/** Runs the suite in-process against a fresh platform with these faults; stops at the first failure. */
export async function runSuiteAgainst(
  faults: readonly string[],
  options: { bail: boolean; exclude?: ReadonlySet<string> },
) {
  let platform: MockPlatform = await createMockPlatform({ faults })
  const result = await runChecks(
    {
      baseUrl: BASE_URL,
      provision: 'mock',
      destructive: true,
      fetch: engineFetch(() => platform, BASE_URL),
    },
    { bail: options.bail, filter: (check) => !options.exclude?.has(check.id) },
  )
  platform = undefined as unknown as MockPlatform
  return result
}

/** Runs one mutant: the suite against the mock with `fault` switched on. */
export async function runMutant(fault: string, exclude: ReadonlySet<string>): Promise<MutantResult> {
  const started = performance.now()
  const result = await runSuiteAgainst([fault], { bail: true, exclude })
  const failed = result.outcomes.find((o: CheckOutcome) => o.status === 'failed')
  return {
    fault,
    killed: failed !== undefined,
    killedBy: failed?.check.id,
    detail: failed?.failure
      ? `${failed.failure.expected} / ${failed.failure.actual}`.slice(0, 200)
      : undefined,
    durationMs: performance.now() - started,
  }
}

/** The harness's result: the score and every mutant's fate. */
export interface MutationReport {
  score: number
  results: MutantResult[]
  /** Checks that fail against the unmodified mock (left out of the mutant runs so they cannot kill). */
  baselineFailures: string[]
  durationMs: number
}

/**
 * Runs the unmodified mock first (its failing checks, if any, are left out so that they cannot kill
 * mutants), then every mutant in turn, in one process.
 */
export async function runMutationHarness(
  faults: readonly string[],
  onResult?: (result: MutantResult) => void,
): Promise<MutationReport> {
  const started = performance.now()
  const baseline = await runSuiteAgainst([], { bail: false })
  const baselineFailures = baseline.outcomes.filter((o) => o.status === 'failed').map((o) => o.check.id)
  const exclude = new Set(baselineFailures)
  const results: MutantResult[] = []
  for (const fault of faults) {
    const result = await runMutant(fault, exclude)
    results.push(result)
    onResult?.(result)
  }
  const killed = results.filter((r) => r.killed).length
  return {
    score: results.length === 0 ? 0 : (killed / results.length) * 100,
    results,
    baselineFailures,
    durationMs: performance.now() - started,
  }
}

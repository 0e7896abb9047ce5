import { describe, expect, it } from 'vitest'
import { createMockPlatform } from '../../../mocks/platform.ts'
import { type Fault, faultyHandler } from '../../reliability/support/faulty-handler.ts'
import { type ExplorationRun, exploreInProcess, FIXED_SEEDS, firstSeedThatFinds } from './explore-run.ts'

/** A fault of a held-out set, by name. */
interface NamedFault {
  name: string
  make: () => Fault
}

/**
 * Registers the tests of the faults of a held-out set (`faults`) that exploration alone missed as the set was
 * handed over and catches since (`caught`): each is the correct engine wrapped in test code, looked for with the
 * first of `FIXED_SEEDS` that finds it (`sequences` each, 40 by default), the same on every run; `more` checks the
 * failure further, `showing` names what the test names show. Then the correct engine behind the same wrapping
 * passes.
 */
export function exploresHeldOutSet(
  title: string,
  faults: readonly NamedFault[],
  caught: readonly string[],
  options: { sequences?: number; showing?: string; more?: (run: ExplorationRun) => void } = {},
): void {
  const sequences = options.sequences ?? 40
  describe(title, () => {
    it.each(caught)(
      `catches %s (within sixteen fixed seeds)${options.showing ? `, ${options.showing}` : ''}`,
      async (name) => {
        const fault = faults.find((f) => f.name === name)
        if (!fault) throw new Error(`no fault ${name}`)
        const run = await firstSeedThatFinds((platform) => faultyHandler(platform, fault.make()), {
          seeds: FIXED_SEEDS,
          sequences,
        })
        expect(run?.outcome.status, `no seed of ${FIXED_SEEDS.length} found ${name}`).toBe('failed')
        options.more?.(run as ExplorationRun)
      },
      180_000,
    )

    it('passes the correct engine behind the same wrapping (seed 1)', async () => {
      const platform = await createMockPlatform({ seedSize: { callLogs: 0 } })
      const run = await exploreInProcess(faultyHandler(platform, {}), { seed: 1, sequences })
      await platform.close()
      expect(run.outcome.status, run.outcome.failure?.actual).toBe('passed')
    }, 120_000)
  })
}

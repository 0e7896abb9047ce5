import { describe, expect, it } from 'vitest'
import { createMockPlatform } from '../../mocks/platform.ts'
import { faults } from '../fault-sets/held-out-19.ts'
import { faultyHandler } from '../reliability/support/faulty-handler.ts'
import { exploreInProcess, FIXED_SEEDS, firstSeedThatFinds } from './support/explore-run.ts'

// Faults of held-out set 19 (lifecycles) that exploration alone missed as the set was handed over, caught since it
// changes one object several times in a row with bodies made from what the object was before (body-edits.ts): a
// field set back to an earlier value, a field cleared, a map's key removed and added again with a new value.
// Each fault is the correct engine wrapped in test code, looked for with the first of sixteen fixed seeds that finds it.

const SEQUENCES = 40
const SEEDS = FIXED_SEEDS

const CAUGHT = [
  'readded-metadata-key-keeps-old-value',
  'reconnect-restores-first-connected-at',
  'disconnect-clears-config',
  'new-webhook-url-resets-subscriptions',
  'reactivated-agent-restamps-created-at',
]

describe('exploration alone against faults of held-out set 19 it missed as handed over', () => {
  it.each(CAUGHT)(
    'catches %s (within sixteen fixed seeds)',
    async (name) => {
      const fault = faults.find((f) => f.name === name) as (typeof faults)[number]
      const run = await firstSeedThatFinds((platform) => faultyHandler(platform, fault.make()), {
        seeds: SEEDS,
        sequences: SEQUENCES,
      })
      expect(run?.outcome.status, `no seed of ${SEEDS.length} found ${name}`).toBe('failed')
    },
    180_000,
  )

  it('passes the correct engine behind the same wrapping (seed 1)', async () => {
    const platform = await createMockPlatform({ seedSize: { callLogs: 0 } })
    const run = await exploreInProcess(faultyHandler(platform, {}), { seed: 1, sequences: SEQUENCES })
    await platform.close()
    expect(run.outcome.status, run.outcome.failure?.actual).toBe('passed')
  }, 120_000)
})

import { describe, expect, it } from 'vitest'
import { createMockPlatform } from '../../mocks/platform.ts'
import { faults } from '../fault-sets/held-out-18.ts'
import { faultyHandler } from '../reliability/support/faulty-handler.ts'
import { exploreInProcess, FIXED_SEEDS, firstSeedThatFinds } from './support/explore-run.ts'

// Faults of held-out set 18 (the rare paths) that exploration alone missed as the set was handed over, caught since
// it draws instants near the calendar's edges (a leap day, the epoch and the second before it, 2038, the first and
// last years RFC 3339 writes), keys that expire long after a sequence, URIs as long as their bound, the contract's
// examples of time zones, lets invited members join through the control plane, and compares a simulated call's price and end reason where the control plane fixes them.
// Each fault is the correct engine wrapped in test code, looked for with the first of sixteen fixed seeds that finds it.

const SEQUENCES = 40
const SEEDS = FIXED_SEEDS

const CAUGHT = [
  'unanswered-call-cost-null',
  'duration-cap-reported-as-agent-ended',
  'leap-day-bounds-refused',
  'pre-epoch-started-bounds-refused',
  'key-expiry-after-2038-wraps',
  'webhook-url-limited-to-255-characters',
  'zone-names-with-signs-or-digits-refused',
  // Caught since an invited member may join through the control plane (joinTeamMember).
  'active-member-role-change-reinvites',
]

describe('exploration alone against faults of held-out set 18 it missed as handed over', () => {
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

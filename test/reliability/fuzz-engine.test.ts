import { beforeAll, describe, expect, it } from 'vitest'
import { engineFuzzProperty, type FuzzTally } from './support/engine-fuzz.ts'
import { createFixtures, type Fixtures } from './support/fixtures.ts'
import { assertFuzz, fuzzConfig } from './support/fuzz-config.ts'

const { seed, runs } = fuzzConfig(20_261_121, 700)

describe('fuzzing the engine (in process)', () => {
  let fixtures: Fixtures
  const drift: string[] = []
  beforeAll(async () => {
    fixtures = await createFixtures({ onContractViolation: (message) => drift.push(message) })
  })

  it('answers random and malformed requests on every route without a 5xx, with contract error bodies and no key value', async () => {
    const tally: FuzzTally = { tried: 0, statuses: {} }
    const started = performance.now()
    try {
      await assertFuzz(engineFuzzProperty(fixtures, tally), { seed, numRuns: runs })
    } finally {
      console.log(
        `fuzz (engine): ${tally.tried} requests tried in ${runs} sequences, seed ${seed} (replay: FUZZ_SEED=${seed}), ` +
          `${Math.round(performance.now() - started)} ms; statuses ${JSON.stringify(tally.statuses)}`,
      )
    }
    expect(drift).toEqual([])
  }, 60_000)
})

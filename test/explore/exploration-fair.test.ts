import { describe, expect, it } from 'vitest'
import { createMockPlatform } from '../../mocks/platform.ts'
import { ALLOWED_FORMS, type AllowedForm, alteredMock } from '../support/altered-mock.ts'
import { exploreInProcess } from './support/explore-run.ts'

// No false failure: exploration compares what the contract fixes and nothing else, so a correct implementation
// passes every seed, whichever allowed form it chose (docs/decisions/011-allowed-forms.md). Bounded: a few
// sequences per seed, 20 seeds.

const SEEDS = Array.from({ length: 20 }, (_, i) => 1000 + i)

describe('exploration finds no difference where there is none', () => {
  it('against the mock, over 20 seeds', async () => {
    const failed: string[] = []
    let requests = 0
    for (const seed of SEEDS) {
      const run = await exploreInProcess(await createMockPlatform({ seedSize: { callLogs: 0 } }), {
        seed,
        sequences: 3,
      })
      requests += run.result?.requests ?? 0
      if (run.outcome.status !== 'passed')
        failed.push(`seed ${seed}: ${run.outcome.failure?.actual ?? run.outcome.reason}`)
      const unconfirmed = run.outcome.notes.find((n) => n.includes('did not happen again'))
      if (unconfirmed) failed.push(`seed ${seed}: ${unconfirmed}`)
    }
    expect(failed).toEqual([])
    expect(requests).toBeGreaterThan(SEEDS.length * 40)
  }, 300_000)

  it.each(Object.keys(ALLOWED_FORMS) as AllowedForm[])(
    'against the mock answering with %s, over 20 seeds',
    async (form) => {
      const failed: string[] = []
      for (const seed of SEEDS) {
        const { fetch } = await alteredMock('http://explore.test/v1', [ALLOWED_FORMS[form]()])
        const run = await exploreInProcess(undefined, { seed, sequences: 2, fetch })
        if (run.outcome.status !== 'passed')
          failed.push(`seed ${seed}: ${run.outcome.failure?.actual ?? run.outcome.reason}`)
      }
      expect(failed).toEqual([])
    },
    300_000,
  )
})

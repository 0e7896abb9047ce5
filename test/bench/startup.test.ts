import { describe, expect, it } from 'vitest'
import { MOCK_DIST_MAIN } from '../../scripts/bench/paths.ts'
import { mockFirst200 } from '../../scripts/bench/startup.ts'

describe('the bench start-up phase', () => {
  // The phase reads the demo key from the banner: a change to the banner must not leave it waiting 30 s and failing.
  it('reads the key from the built mock banner and reaches the first 200', async () => {
    const ms = await mockFirst200([MOCK_DIST_MAIN])
    expect(ms).toBeGreaterThan(0)
    expect(ms).toBeLessThan(30_000)
  }, 40_000)
})

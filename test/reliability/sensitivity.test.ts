import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { burstOnFreeAccount, idempotentCreates, revocationUnderLoad } from './support/concurrency-cases.ts'
import { engineFuzzProperty } from './support/engine-fuzz.ts'
import { createFixtures } from './support/fixtures.ts'
import { inProcessTarget } from './support/targets.ts'

/**
 * The reliability checks can fail: run against an engine with one of its named faults switched on,
 * each check reports the fault. (Durability and the slow-client timeouts were shown the same way by
 * breaking the server code: see the README's reliability section.)
 */
describe('the reliability checks against a faulty engine', () => {
  it.each(['wrong-401-code', 'error-request-id-mismatch', 'request-id-missing', '422-without-errors'])(
    'the engine fuzz property fails with the fault %s',
    async (fault) => {
      const fixtures = await createFixtures({ faults: [fault] })
      const result = await fc.check(engineFuzzProperty(fixtures, { tried: 0, statuses: {} }), {
        seed: 7,
        numRuns: 300,
      })
      expect(result.failed).toBe(true)
    },
    30_000,
  )

  it('the burst check sees 11 admitted with rate-limit-off-by-one', async () => {
    const target = await inProcessTarget({ faults: ['rate-limit-off-by-one'] })
    try {
      expect((await burstOnFreeAccount(target.origin)).admitted).not.toBe(10)
    } finally {
      await target.close()
    }
  })

  it('the idempotency check sees several agents with idempotency-replay-ignored', async () => {
    const target = await inProcessTarget({ faults: ['idempotency-replay-ignored'] })
    try {
      expect((await idempotentCreates(target.origin, 20)).stored).toBeGreaterThan(1)
    } finally {
      await target.close()
    }
  })

  it('the revocation check sees admitted requests with revoked-key-accepted', async () => {
    const target = await inProcessTarget({ faults: ['revoked-key-accepted'] })
    try {
      const { after } = await revocationUnderLoad(target.origin, 4)
      expect(after.filter((s) => s.status !== 401).length).toBeGreaterThan(0)
    } finally {
      await target.close()
    }
  })
})

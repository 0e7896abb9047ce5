import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { burstOnFreeAccount, idempotentCreates, revocationUnderLoad } from './support/concurrency-cases.ts'
import { engineFuzzProperty } from './support/engine-fuzz.ts'
import {
  acceptsRevokedKeys,
  admitsOneMore,
  type Fault,
  faults,
  faultyHandler,
  ignoresIdempotencyKeys,
} from './support/faulty-handler.ts'
import { createFixtures } from './support/fixtures.ts'
import { inProcessTarget, type Target } from './support/targets.ts'

/**
 * The reliability checks can fail: run against the mock wrapped in a fault (its requests or answers
 * rewritten by test code, the engine untouched), each check reports the fault. (Durability and the
 * slow-client timeouts were shown the same way by breaking the server code: see the README's
 * reliability section.)
 */
describe('the reliability checks against a faulty implementation', () => {
  it.each(Object.keys(faults) as (keyof typeof faults)[])(
    'the engine fuzz property fails with the fault %s',
    async (name) => {
      const fixtures = await createFixtures()
      const faulty = faultyHandler(fixtures, faults[name])
      const result = await fc.check(
        engineFuzzProperty(
          { ...fixtures, handle: (request) => faulty.handle(request) },
          { tried: 0, statuses: {} },
        ),
        { seed: 7, numRuns: 300 },
      )
      expect(result.failed).toBe(true)
    },
    30_000,
  )

  it('the engine fuzz property holds against the mock without a fault', async () => {
    const fixtures = await createFixtures()
    const faulty = faultyHandler(fixtures, {})
    const result = await fc.check(
      engineFuzzProperty(
        { ...fixtures, handle: (request) => faulty.handle(request) },
        { tried: 0, statuses: {} },
      ),
      { seed: 7, numRuns: 50 },
    )
    expect(result.failed).toBe(false)
  }, 30_000)

  async function withFault<T>(fault: Fault, run: (target: Target) => Promise<T>): Promise<T> {
    const target = await inProcessTarget({ wrap: (platform) => faultyHandler(platform, fault) })
    try {
      return await run(target)
    } finally {
      await target.close()
    }
  }

  it('the burst check sees 11 admitted when one request more than the quota is admitted', async () => {
    const { admitted } = await withFault(admitsOneMore(), (target) => burstOnFreeAccount(target.origin))
    expect(admitted).toBe(11)
  })

  it('the idempotency check sees several agents when Idempotency-Key is ignored', async () => {
    const { stored } = await withFault(ignoresIdempotencyKeys, (target) =>
      idempotentCreates(target.origin, 20),
    )
    expect(stored).toBeGreaterThan(1)
  })

  it('the revocation check sees admitted requests when a revoked key is still accepted', async () => {
    const { after } = await withFault(acceptsRevokedKeys(), (target) => revocationUnderLoad(target.origin, 4))
    expect(after.filter((s) => s.status !== 401).length).toBeGreaterThan(0)
  })
})

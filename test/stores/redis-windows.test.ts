import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClock } from '../../mocks/engine/clock.ts'
import type { EngineResponse } from '../../mocks/engine/types.ts'
import { createMockPlatform, type MockPlatform } from '../../mocks/platform.ts'
import { createRedisStore } from '../../mocks/stores/redis/redis-store.ts'
import { REDIS_TOPOLOGIES, redisAvailable, type SharedRedis } from './support/shared-redis.ts'

/**
 * The shared store counts requests in Redis (one script per account); what a client sees of its windows is
 * what one process alone shows: the same statuses and the same rate-limit headers, request after request.
 */
const HEADERS = [
  'ratelimit',
  'ratelimit-policy',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
]
const each = redisAvailable() ? describe.each(REDIS_TOPOLOGIES) : describe.skip.each(REDIS_TOPOLOGIES)

/** A platform whose real time is `now()`, with a free-plan account and its key. */
async function freeAccount(now: () => number, store?: Awaited<ReturnType<typeof createRedisStore>>) {
  const platform = await createMockPlatform({ clock: createClock({ realNow: now }), store })
  const account = await platform.createAccount({ plan: 'free' })
  const { value } = await platform.createKey(account.id, { type: 'secret', name: 'windows' })
  return { platform, key: value }
}

/** What a client sees of an answer's windows. */
function seen(response: EngineResponse) {
  return [response.status, ...HEADERS.map((name) => response.headers[name] ?? null)]
}

each('rate-limit windows counted on %s', (_name, startRedis) => {
  let redis: SharedRedis
  let platforms: MockPlatform[] = []
  beforeAll(async () => {
    redis = await startRedis()
  }, 60_000)
  afterAll(async () => {
    await Promise.all(platforms.map((platform) => platform.close()))
    await redis?.stop()
  })

  it('answers a free account as one process does: statuses and headers, across bursts and hours', async () => {
    let now = Date.UTC(2026, 0, 5, 12, 0, 0, 250)
    const memory = await freeAccount(() => now)
    const shared = await freeAccount(() => now, await createRedisStore(redis.target))
    platforms = [memory.platform, shared.platform]
    const timeline: number[] = [
      ...Array(12).fill(0),
      20_000,
      0,
      41_000,
      0,
      0,
      ...Array(40).fill(1_500),
      3_600_000,
      0,
    ]
    const inMemory: unknown[] = []
    const onRedis: unknown[] = []
    for (const step of timeline) {
      now += step
      const get = (target: typeof memory) =>
        target.platform.handle({
          method: 'GET',
          url: '/v1/user',
          headers: { authorization: `Bearer ${target.key}` },
          body: null,
        })
      inMemory.push(seen(await get(memory)))
      onRedis.push(seen(await get(shared)))
    }
    expect(onRedis).toEqual(inMemory)
    const statuses = inMemory.map((answer) => (answer as number[])[0])
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(10)
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(20)
  }, 60_000)
})

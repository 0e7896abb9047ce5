import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClock } from '../../mocks/engine/clock.ts'
import type { EngineRequest } from '../../mocks/engine/types.ts'
import { createMockPlatform, type MockPlatform } from '../../mocks/platform.ts'
import { createRedisStore, type RedisStore } from '../../mocks/stores/redis/redis-store.ts'
import { agentBody } from '../reliability/support/targets.ts'
import { REDIS_TOPOLOGIES, redisAvailable, type SharedRedis } from './support/shared-redis.ts'

/**
 * What one request costs on the shared store (docs/state.md): a read that only counts, one round trip to Redis
 * (its account checked and the request counted in one script); a write, two (that, then its changes set by
 * compare-and-set). The journal is appended in the background, on no answer's path.
 */
const ROOMY = { hourly: 100_000_000, burst: 100_000_000 }
const each = redisAvailable() ? describe.each(REDIS_TOPOLOGIES) : describe.skip.each(REDIS_TOPOLOGIES)

const READS = [
  ['GET', '/v1/agents?limit=20'],
  ['GET', '/v1/user'],
  ['GET', '/v1/call-logs?limit=5'],
  ['GET', '/v1/integrations'],
  ['GET', '/v1/agents/agt_missing'],
] as const

each('round trips per request on %s', (name, startRedis) => {
  let redis: SharedRedis
  let store: RedisStore
  let platform: MockPlatform
  let key: string
  // Real time stands still: the key's last-used time (once a second) does not change between requests.
  const clock = createClock({ realNow: () => Date.UTC(2026, 0, 5, 12, 0, 0) })
  const request = (method: string, url: string, body?: unknown): EngineRequest => ({
    method,
    url,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? null : JSON.stringify(body),
  })
  /** The answer's status, and the round trips and commands the store made for it. */
  async function cost(sent: EngineRequest) {
    const before = store.stats()
    const response = await platform.handle(sent)
    const after = store.stats()
    return {
      status: response.status,
      body: response.body as { id?: string },
      trips: after.roundTrips - before.roundTrips,
      commands: after.commands - before.commands,
    }
  }

  beforeAll(async () => {
    redis = await startRedis()
    store = await createRedisStore(redis.target)
    platform = await createMockPlatform({ store, clock })
    const account = await platform.createAccount({ plan: 'enterprise', limits: ROOMY })
    key = (await platform.createKey(account.id, { type: 'secret', name: 'round trips' })).value
    // The first request notes the key as used this second (a change): the ones measured do not.
    expect((await platform.handle(request('GET', '/v1/user'))).status).toBe(200)
  }, 60_000)
  afterAll(async () => {
    await platform?.close()
    await redis?.stop()
  })

  it.each(READS)('answers %s %s in one round trip', async (method, url) => {
    const spent = await cost(request(method, url))
    expect(spent.status).toBeLessThan(500)
    expect(spent.trips).toBe(1)
    // A cluster reads the global part's version from its own slot, beside the account's script.
    expect(spent.commands).toBe(name.includes('Cluster') ? 2 : 1)
  })

  it('answers a create, an update and a delete in two round trips each', async () => {
    const created = await cost(request('POST', '/v1/agents', agentBody('two trips')))
    const updated = await cost(request('PATCH', `/v1/agents/${created.body.id}`, { name: 'renamed' }))
    const deleted = await cost(request('DELETE', `/v1/agents/${created.body.id}`))
    const invited = await cost(
      request('POST', '/v1/team-members', { email: 'trips@example.com', role: 'viewer' }),
    )
    expect([created.status, updated.status, deleted.status, invited.status]).toEqual([201, 200, 200, 201])
    for (const spent of [created, updated, deleted, invited]) expect(spent.trips).toBe(2)
  })

  it('shares one round trip between concurrent reads of one account', async () => {
    const before = store.stats()
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => platform.handle(request('GET', '/v1/agents?limit=20'))),
    )
    const after = store.stats()
    expect(answers.every((answer) => answer.status === 200)).toBe(true)
    expect(after.roundTrips - before.roundTrips).toBeLessThan(40)
  })
})

/**
 * Independent of the store's own count: the commands Redis receives (MONITOR), scripts' inner commands and the
 * journal's background appends aside.
 */
;(redisAvailable() ? describe : describe.skip)('commands Redis receives per request (MONITOR)', () => {
  let redis: SharedRedis
  let platform: MockPlatform
  let monitor: Redis
  let key: string
  const sent: string[][] = []
  const clock = createClock({ realNow: () => Date.UTC(2026, 0, 5, 12, 0, 0) })
  const get = (url: string) =>
    platform.handle({ method: 'GET', url, headers: { authorization: `Bearer ${key}` }, body: null })
  const settle = () => new Promise((resolve) => setTimeout(resolve, 100))

  beforeAll(async () => {
    redis = await (REDIS_TOPOLOGIES[0] as (typeof REDIS_TOPOLOGIES)[number])[1]()
    platform = await createMockPlatform({ store: await createRedisStore(redis.url), clock })
    const account = await platform.createAccount({ plan: 'enterprise', limits: ROOMY })
    key = (await platform.createKey(account.id, { type: 'secret', name: 'monitor' })).value
    expect((await get('/v1/user')).status).toBe(200)
    monitor = await new Redis(redis.url).monitor()
    monitor.on('error', () => {
      // Redis stops at the end.
    })
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source === 'lua' || args.some((arg) => arg.includes(':journal'))) return
      sent.push(args)
    })
    await settle()
  }, 60_000)
  afterAll(async () => {
    monitor?.disconnect()
    await platform?.close()
    await redis?.stop()
  })

  it('receives one command for a read and two for a write', async () => {
    const counts: number[] = []
    for (const step of [
      () => get('/v1/agents?limit=20'),
      () => get('/v1/user'),
      () =>
        platform.handle({
          method: 'POST',
          url: '/v1/agents',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(agentBody('monitored')),
        }),
    ]) {
      sent.length = 0
      expect((await step()).status).toBeLessThan(300)
      await settle()
      counts.push(sent.length)
    }
    expect(counts).toEqual([1, 1, 2])
  })
})

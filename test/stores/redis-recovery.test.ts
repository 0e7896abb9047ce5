import { Cluster, Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClock } from '../../mocks/engine/clock.ts'
import { createMockPlatform, type MockPlatform } from '../../mocks/platform.ts'
import { globalKeys, partitionKeys } from '../../mocks/stores/redis/redis-keys.ts'
import { createRedisStore } from '../../mocks/stores/redis/redis-store.ts'
import { REDIS_TOPOLOGIES, redisAvailable, type SharedRedis } from './support/shared-redis.ts'

/**
 * A step over several parts (a call's transition, a reset's...) is committed as an intent, then carried out on
 * each account, whose mark keeps other processes off it meanwhile. A process that dies in between leaves the
 * store as the tests below set it up by hand (its lock, its marks, maybe its intent): the next process to need
 * the account waits out the dead lock, carries out a committed intent, and drops marks nobody will clear.
 */
const each = redisAvailable() ? describe.each(REDIS_TOPOLOGIES) : describe.skip.each(REDIS_TOPOLOGIES)
const DEAD_FOR_MS = 1500

each('a global step whose process died on %s', (_name, startRedis) => {
  let redis: SharedRedis
  let client: Redis | Cluster
  let platform: MockPlatform
  const globals = globalKeys('vak:')

  const getAgent = (id: string) =>
    platform.handle({
      method: 'GET',
      url: `/v1/agents/${id}`,
      headers: { authorization: `Bearer ${platform.demo.secretKey}` },
      body: null,
    })

  /** The demo account, its first agent as stored, and its keys in Redis now. */
  async function demoAgent() {
    const account = platform.demo.account.id
    const [id, agent] = platform.snapshot().tables.agents?.find(([key]) => key.startsWith(account)) ?? []
    const epoch = Number(await client.hget(globals.state, 'e'))
    const keys = partitionKeys('vak:', account, epoch)
    const version = Number(await client.hget(keys.state, 'v'))
    return { account, key: id as string, agent: agent as { id: string; name: string }, epoch, keys, version }
  }

  /** What a process leaves when it dies holding the global lock with a mark on an account. */
  async function diedHolding(keys: { state: string }) {
    const deadline = Date.now() + DEAD_FOR_MS
    await client.set(globals.lock, 'dead-holder', 'PX', DEAD_FOR_MS)
    await client.hset(keys.state, 'm', 'dead-holder', 'md', deadline)
  }

  beforeAll(async () => {
    redis = await startRedis()
    client = redis.target.kind === 'cluster' ? new Cluster(redis.target.nodes) : new Redis(redis.target.url)
    // Real time stands still, so that requests make no change of their own (a key's last-used time).
    const clock = createClock({ realNow: () => Date.UTC(2026, 0, 5, 12, 0, 0) })
    platform = await createMockPlatform({ store: await createRedisStore(redis.target), clock })
    expect((await getAgent('agt_missing')).status).toBe(404)
  }, 60_000)
  afterAll(async () => {
    client?.disconnect()
    await platform?.close()
    await redis?.stop()
  })

  it('carries out the intent it committed: the next request sees its change, once', async () => {
    const { account, key, agent, epoch, keys, version } = await demoAgent()
    const renamed = { ...agent, name: 'renamed by a dead process' }
    const json = JSON.stringify(renamed)
    await diedHolding(keys)
    await client.hset(globals.intent, {
      tok: 'dead-holder',
      body: JSON.stringify({
        epoch,
        global: Number(await client.hget(globals.state, 'v')),
        parts: [
          {
            account,
            base: version,
            args: [`agents:${key}`, json],
            payload: `[["agents",${JSON.stringify(key)},${json}]]`,
            drop: false,
          },
        ],
      }),
    })
    const started = Date.now()
    const answer = await getAgent(agent.id)
    expect(answer.status).toBe(200)
    expect((answer.body as { name: string }).name).toBe('renamed by a dead process')
    // It waited for the dead process's lock to run out, not forever.
    expect(Date.now() - started).toBeGreaterThanOrEqual(DEAD_FOR_MS - 200)
    expect(await client.exists(globals.intent)).toBe(0)
    expect(await client.hget(keys.state, 'm')).toBeNull()
    expect(Number(await client.hget(keys.state, 'v'))).toBe(version + 1)
  }, 30_000)

  it('drops a mark left without an intent: the account goes on unchanged', async () => {
    const { agent, keys, version } = await demoAgent()
    await diedHolding(keys)
    const answer = await getAgent(agent.id)
    expect(answer.status).toBe(200)
    expect((answer.body as { name: string }).name).toBe(agent.name)
    expect(await client.hget(keys.state, 'm')).toBeNull()
    expect(Number(await client.hget(keys.state, 'v'))).toBe(version)
  }, 30_000)
})

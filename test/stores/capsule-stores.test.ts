import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockPlatform } from '../../mocks/platform.ts'
import { httpJson } from '../reliability/support/http-json.ts'
import { type SpawnedMock, spawnMock } from '../reliability/support/spawn-mock.ts'
import { agentBody } from '../reliability/support/targets.ts'
import { REDIS_TOPOLOGIES, redisAvailable, type SharedRedis } from './support/shared-redis.ts'

const each = redisAvailable() ? describe.each(REDIS_TOPOLOGIES) : describe.skip.each(REDIS_TOPOLOGIES)

/**
 * A capsule opened on a shared store goes through the store like any change: every process on it holds the
 * capsule's state at its next step, and a capsule taken from any of them holds it.
 */
each('a capsule opened on a store shared by two mock processes on %s', (_name, startRedis) => {
  let redis: SharedRedis
  let mocks: SpawnedMock[] = []

  beforeAll(async () => {
    redis = await startRedis()
    mocks = [await spawnMock(['--quiet', '--store', redis.url])]
    mocks.push(await spawnMock(['--quiet', '--store', redis.url]))
  }, 60_000)
  afterAll(async () => {
    await Promise.all(mocks.map((mock) => mock.kill('SIGTERM')))
    await redis?.stop()
  })

  it("gives the other process the capsule's agents and keys, and its capsule holds them", async () => {
    const elsewhere = await createMockPlatform({ seed: 11 })
    const key = elsewhere.demo.secretKey ?? ''
    const created = await elsewhere.handle({
      method: 'POST',
      url: '/v1/agents',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(agentBody('Agent on a shared store')),
    })
    const agentId = (created.body as { id: string }).id
    const [first, second] = mocks as [SpawnedMock, SpawnedMock]
    const opened = await httpJson(first.origin, 'POST', '/_mock/capsule', { body: await elsewhere.capsule() })
    expect(opened.status).toBe(200)
    const agent = await httpJson(second.origin, 'GET', `/v1/agents/${agentId}`, { key })
    expect(agent.status).toBe(200)
    expect(agent.body.name).toBe('Agent on a shared store')
    const taken = await httpJson(second.origin, 'GET', '/_mock/capsule')
    expect(JSON.stringify(taken.body)).toContain(agentId)
  })
})

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { httpJson, provisionAccount } from '../reliability/support/http-json.ts'
import { type SpawnedMock, spawnMock } from '../reliability/support/spawn-mock.ts'
import { agentBody } from '../reliability/support/targets.ts'
import { type Acknowledged, emptyAcknowledged, startWriteLoad } from '../reliability/support/write-load.ts'
import { REDIS_TOPOLOGIES, redisAvailable, type SharedRedis } from './support/shared-redis.ts'

/**
 * Several mock processes on one Redis store (`--store redis://...`, or `redis-cluster://...`), as a team runs a
 * shared mock behind a load balancer: one state, exact rules across processes, and no acknowledged write lost
 * when one dies.
 */
const each = redisAvailable() ? describe.each(REDIS_TOPOLOGIES) : describe.skip.each(REDIS_TOPOLOGIES)

each('three mock processes on %s', (_name, startRedis) => {
  let redis: SharedRedis
  let mocks: SpawnedMock[] = []
  const store = () => ['--quiet', '--store', redis.url]

  beforeAll(async () => {
    redis = await startRedis()
    mocks = [await spawnMock(store())]
    mocks.push(...(await Promise.all([spawnMock(store()), spawnMock(store())])))
  }, 60_000)
  afterAll(async () => {
    await Promise.all(mocks.map((mock) => mock.kill('SIGTERM')))
    await redis?.stop()
  })

  it('admits exactly 10 of 300 concurrent requests of a free-plan account spread over the three', async () => {
    const { key } = await provisionAccount(mocks[0]?.origin ?? '', { plan: 'free' })
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        httpJson(mocks[i % 3]?.origin ?? '', 'GET', '/v1/user', { key }).then((r) => r.status),
      ),
    )
    expect(answers.filter((status) => status === 200)).toHaveLength(10)
    expect(answers.filter((status) => status === 429)).toHaveLength(290)
    // Every process sees the same budget afterwards.
    for (const mock of mocks)
      expect((await httpJson(mock.origin, 'GET', '/v1/user', { key })).status).toBe(429)
  })

  it('refuses a key revoked through one process on the next request to each of the others', async () => {
    const { key, keyId } = await provisionAccount(mocks[1]?.origin ?? '', { plan: 'pro' })
    for (const mock of mocks)
      expect((await httpJson(mock.origin, 'GET', '/v1/user', { key })).status).toBe(200)
    expect((await httpJson(mocks[0]?.origin ?? '', 'POST', `/_mock/keys/${keyId}/revoke`)).status).toBe(200)
    for (const mock of mocks.slice(1))
      expect((await httpJson(mock.origin, 'GET', '/v1/user', { key })).status).toBe(401)
  })

  it('creates one object for one Idempotency-Key sent to all three at once', async () => {
    const { key } = await provisionAccount(mocks[2]?.origin ?? '', { plan: 'enterprise' })
    const headers = { 'idempotency-key': `same-${Date.now()}` }
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        httpJson(mocks[i % 3]?.origin ?? '', 'POST', '/v1/agents', { key, headers, body: agentBody('once') }),
      ),
    )
    expect(answers.every((answer) => answer.status === 201)).toBe(true)
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1)
    const listed = await httpJson(mocks[0]?.origin ?? '', 'GET', '/v1/agents?limit=100', { key })
    expect(listed.body.data).toHaveLength(1)
  })

  it('applies a plan change, a move of the clock and a deletion made through one process on the next request to another', async () => {
    const [a, b, c] = mocks.map((mock) => mock.origin) as [string, string, string]
    const { accountId, key } = await provisionAccount(a, { plan: 'enterprise' })
    expect((await httpJson(b, 'GET', '/v1/user', { key })).status).toBe(200)
    // Limits: a burst of 2, set through a; b counts what it answered already.
    const patched = await httpJson(a, 'PATCH', `/_mock/accounts/${accountId}`, {
      body: { limits: { hourly: 100, burst: 2 } },
    })
    expect(patched.status).toBe(200)
    const statuses = []
    for (const origin of [b, c, b]) statuses.push((await httpJson(origin, 'GET', '/v1/user', { key })).status)
    expect(statuses).toEqual([200, 429, 429])
    // A key that expires in an hour, and the clock moved two hours on through c: refused by b at once.
    const expiring = await httpJson(c, 'POST', `/_mock/accounts/${accountId}/keys`, {
      body: {
        type: 'secret',
        name: 'expiring',
        restrictions: { expires_at: new Date(Date.now() + 3_600_000).toISOString() },
      },
    })
    expect(expiring.status).toBe(201)
    const moved = await httpJson(c, 'POST', '/_mock/clock/advance', { body: { seconds: 7200 } })
    expect(moved.status).toBe(200)
    const refused = await httpJson(b, 'GET', '/v1/user', { key: expiring.body.value })
    expect(refused.status).toBe(401)
    expect(refused.body.error.message).toMatch(/expired/)
    // The burst window (60 s) is empty two hours on: admitted again, as of the moved clock.
    expect((await httpJson(a, 'GET', '/v1/user', { key })).status).toBe(200)
    // Deleted through a: gone for b and c.
    expect((await httpJson(a, 'DELETE', `/_mock/accounts/${accountId}`)).status).toBe(200)
    expect((await httpJson(b, 'GET', '/v1/user', { key })).status).toBe(401)
    expect((await httpJson(c, 'GET', `/_mock/accounts/${accountId}`)).status).toBe(404)
  })

  it("shows requests answered by one process in another's journal", async () => {
    const { key, keyId } = await provisionAccount(mocks[0]?.origin ?? '', { plan: 'pro' })
    const answered = await httpJson(mocks[0]?.origin ?? '', 'GET', '/v1/agents/agt_journaled', { key })
    const requestId = answered.headers['request-id']
    let journaled: { id: string; status: number }[] = []
    // Appended in the background: within a moment.
    for (let i = 0; i < 50 && journaled.length === 0; i++) {
      const journal = await httpJson(mocks[2]?.origin ?? '', 'GET', `/_mock/journal?key_id=${keyId}`)
      journaled = journal.body.data
      if (journaled.length === 0) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(journaled.map(({ id, status }) => ({ id, status }))).toEqual([{ id: requestId, status: 404 }])
  })

  it('shows a reset through one process in every other, with the demo keys still valid', async () => {
    const keys = await httpJson(mocks[0]?.origin ?? '', 'GET', '/_mock/accounts')
    const demo = keys.body.data[0].id as string
    const created = await httpJson(mocks[1]?.origin ?? '', 'POST', `/_mock/accounts/${demo}/keys`, {
      body: { type: 'secret', name: 'before reset' },
    })
    expect(created.status).toBe(201)
    expect((await httpJson(mocks[2]?.origin ?? '', 'POST', '/_mock/reset')).status).toBe(200)
    for (const mock of mocks) {
      expect((await httpJson(mock.origin, 'GET', '/v1/user', { key: created.body.value })).status).toBe(401)
      const listed = await httpJson(mock.origin, 'GET', `/_mock/accounts/${demo}/keys`)
      expect(listed.body.data.map((k: { name: string }) => k.name)).not.toContain('before reset')
    }
  })
})

each('a mock process killed on %s', (_name, startRedis) => {
  let redis: SharedRedis
  const started: SpawnedMock[] = []
  beforeAll(async () => {
    redis = await startRedis()
  }, 60_000)
  afterEach(async () => {
    await Promise.all(started.splice(0).map((mock) => mock.kill('SIGKILL')))
  })
  afterAll(() => redis?.stop())

  it('loses no acknowledged write: the other process and a restarted one see every one', async () => {
    const store = ['--quiet', '--store', redis.url]
    let victim = await spawnMock(store)
    const survivor = await spawnMock(store)
    started.push(victim, survivor)
    const { accountId, key } = await provisionAccount(victim.origin, {
      plan: 'enterprise',
      limits: { hourly: 100_000_000, burst: 100_000_000 },
    })
    const acked: Acknowledged = emptyAcknowledged()
    for (let cycle = 0; cycle < 3; cycle++) {
      const load = startWriteLoad({ origin: victim.origin, key, accountId, acked }, 8)
      await new Promise((resolve) => setTimeout(resolve, 300 + cycle * 150))
      await victim.kill('SIGKILL')
      load.stop()
      await load.done
      const restarted = await spawnMock(store)
      started.push(restarted)
      for (const origin of [survivor.origin, restarted.origin]) {
        const missing: string[] = []
        for (const [id, name] of acked.agents) {
          if (acked.uncertain.has(id)) continue
          const got = await httpJson(origin, 'GET', `/v1/agents/${id}`, { key })
          if (got.status !== 200 || got.body.name !== name) missing.push(`${id}: ${got.status}`)
        }
        for (const id of acked.deletedAgents) {
          if (acked.uncertain.has(id)) continue
          if ((await httpJson(origin, 'GET', `/v1/agents/${id}`, { key })).status !== 404)
            missing.push(`deleted ${id}`)
        }
        expect(missing).toEqual([])
      }
      victim = restarted
    }
    console.log(
      `redis kill: 3 SIGKILL cycles, ${acked.writes} acknowledged writes found by the survivor and by a restarted process`,
    )
    expect(acked.writes).toBeGreaterThan(30)
  }, 120_000)
})

each('a mock on %s that goes away', (_name, startRedis) => {
  it('answers 503 with the error envelope while Redis is down', async () => {
    const redis = await startRedis()
    const mock = await spawnMock(['--quiet', '--store', redis.url])
    try {
      const { key } = await provisionAccount(mock.origin, { plan: 'pro' })
      await redis.stop()
      const refused = await httpJson(mock.origin, 'GET', '/v1/user', { key })
      expect(refused.status).toBe(503)
      expect(refused.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable' })
    } finally {
      await mock.kill('SIGTERM')
    }
  }, 60_000)
})

;(redisAvailable() ? describe : describe.skip)('--store redis:// given a node of a Redis Cluster', () => {
  it('stops at start with one line naming redis-cluster://', async () => {
    const cluster = await (REDIS_TOPOLOGIES[1] as (typeof REDIS_TOPOLOGIES)[number])[1]()
    try {
      const mock = spawnMock(['--store', `redis://127.0.0.1:${cluster.ports[0]}/0`])
      await expect(mock).rejects.toThrow(
        new RegExp(
          `is a node of a Redis Cluster: use --store redis-cluster://127\\.0\\.0\\.1:${cluster.ports[0]}`,
        ),
      )
    } finally {
      await cluster.stop()
    }
  }, 60_000)
})

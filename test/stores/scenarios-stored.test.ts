import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockPlatform } from '../../mocks/platform.ts'
import { httpJson, provisionAccount } from '../reliability/support/http-json.ts'
import { type SpawnedMock, spawnMock } from '../reliability/support/spawn-mock.ts'
import { REDIS_TOPOLOGIES, redisAvailable, type SharedRedis } from './support/shared-redis.ts'

const ROOMY = { hourly: 100_000_000, burst: 100_000_000 }
const available = redisAvailable()

/** Which of `count` requests, sent one after another, a seed-1 in-process mock answers with `status`. */
async function hitsInOneProcess(scenario: Record<string, unknown>, count: number, status: number) {
  const platform = await createMockPlatform({ seed: 1 })
  const account = await platform.createAccount({ plan: 'enterprise', limits: ROOMY })
  const { value: key } = await platform.createKey(account.id, { type: 'secret', name: 'reference' })
  await platform.handle({
    method: 'POST',
    url: '/_mock/scenarios',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(scenario),
  })
  const out: boolean[] = []
  for (let i = 0; i < count; i++) {
    const response = await platform.handle({
      method: 'GET',
      url: '/v1/agents',
      headers: { authorization: `Bearer ${key}` },
      body: null,
    })
    out.push(response.status === status)
  }
  return out
}

;(available ? describe.each(REDIS_TOPOLOGIES) : describe.skip.each(REDIS_TOPOLOGIES))(
  'scenarios shared by two mock processes on %s',
  (_name, startRedis) => {
    let redis: SharedRedis
    let mocks: SpawnedMock[] = []
    const origin = (i: number) => mocks[i % mocks.length]?.origin ?? ''

    beforeAll(async () => {
      redis = await startRedis()
      mocks = [await spawnMock(['--quiet', '--store', redis.url])]
      mocks.push(await spawnMock(['--quiet', '--store', redis.url]))
    }, 60_000)
    afterAll(async () => {
      await Promise.all(mocks.map((mock) => mock.kill('SIGTERM')))
      await redis?.stop()
    })

    it('applies a scenario exactly times times among 80 concurrent requests spread over both', async () => {
      const { key } = await provisionAccount(origin(0), { plan: 'enterprise', limits: ROOMY })
      const created = await httpJson(origin(0), 'POST', '/_mock/scenarios', {
        body: { operation: 'getUser', status: 503, times: 7 },
      })
      expect(created.status).toBe(201)
      const answers = await Promise.all(
        Array.from({ length: 80 }, (_, i) => httpJson(origin(i), 'GET', '/v1/user', { key })),
      )
      const injected = answers.filter((a) => a.status === 503)
      expect(injected).toHaveLength(7)
      expect(injected.every((a) => a.headers['mock-scenario'] === created.body.id)).toBe(true)
      expect(answers.filter((a) => a.status === 200)).toHaveLength(73)
      for (let i = 0; i < 2; i++) {
        expect((await httpJson(origin(i), 'GET', `/_mock/scenarios/${created.body.id}`)).status).toBe(404)
        expect((await httpJson(origin(i), 'GET', '/v1/user', { key })).status).toBe(200)
      }
    })

    it('draws probability across both processes exactly as one process alone draws', async () => {
      expect((await httpJson(origin(1), 'POST', '/_mock/reset')).status).toBe(200)
      const { key } = await provisionAccount(origin(0), { plan: 'enterprise', limits: ROOMY })
      const scenario = { operation: 'listAgents', status: 502, probability: 0.5 }
      expect((await httpJson(origin(1), 'POST', '/_mock/scenarios', { body: scenario })).status).toBe(201)
      const shared: boolean[] = []
      for (let i = 0; i < 40; i++)
        shared.push((await httpJson(origin(i), 'GET', '/v1/agents', { key })).status === 502)
      expect(shared).toEqual(await hitsInOneProcess(scenario, 40, 502))
      expect(shared.filter(Boolean).length).toBeGreaterThan(0)
      expect(shared.filter(Boolean).length).toBeLessThan(40)
    })

    it('shows a scenario added through one process, and its removal, in the other', async () => {
      const { key } = await provisionAccount(origin(0), { plan: 'enterprise', limits: ROOMY })
      const created = await httpJson(origin(0), 'POST', '/_mock/scenarios', {
        body: { operation: 'listCallLogs', status: 500 },
      })
      expect((await httpJson(origin(1), 'GET', '/v1/call-logs', { key })).status).toBe(500)
      expect((await httpJson(origin(1), 'DELETE', `/_mock/scenarios/${created.body.id}`)).status).toBe(200)
      expect((await httpJson(origin(0), 'GET', '/v1/call-logs', { key })).status).toBe(200)
    })
  },
)

describe('scenarios in a state file (--state-file)', () => {
  let dir: string
  let mock: SpawnedMock | undefined
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vak-scenarios-'))
  })
  afterAll(async () => {
    await mock?.kill('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
  })

  it('survive a restart with their uses, and go on applying', async () => {
    const file = join(dir, 'state.json')
    mock = await spawnMock(['--quiet', '--state-file', file])
    const { key } = await provisionAccount(mock.origin, { plan: 'enterprise', limits: ROOMY })
    const created = await httpJson(mock.origin, 'POST', '/_mock/scenarios', {
      body: { operation: 'getUser', status: 503, times: 3, delay: { type: 'fixed', ms: 5 } },
    })
    expect((await httpJson(mock.origin, 'GET', '/v1/user', { key })).status).toBe(503)
    // Killed: only what was durable before each answer survives.
    await mock.kill('SIGKILL')
    mock = await spawnMock(['--quiet', '--state-file', file])
    const kept = await httpJson(mock.origin, 'GET', `/_mock/scenarios/${created.body.id}`)
    expect(kept.status).toBe(200)
    expect(kept.body).toMatchObject({ uses: 1, remaining: 2, delay: { type: 'fixed', ms: 5 } })
    const statuses = []
    for (let i = 0; i < 3; i++)
      statuses.push((await httpJson(mock.origin, 'GET', '/v1/user', { key })).status)
    expect(statuses).toEqual([503, 503, 200])
  })
})

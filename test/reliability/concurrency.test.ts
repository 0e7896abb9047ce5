import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REDIS_TOPOLOGIES, redisAvailable } from '../stores/support/shared-redis.ts'
import { burstOnFreeAccount, idempotentCreates, revocationUnderLoad } from './support/concurrency-cases.ts'
import { errorProblems } from './support/error-schema.ts'
import { addKey, httpJson, provisionAccount } from './support/http-json.ts'
import {
  agentBody,
  inProcessTarget,
  sharedStoreTarget,
  stateFileTarget,
  type Target,
} from './support/targets.ts'

const UNLIMITED = { hourly: 100_000_000, burst: 100_000_000 }

const shared = redisAvailable()
  ? REDIS_TOPOLOGIES.map(([name, startRedis]): [string, () => Promise<Target>] => {
      const label = `three CLI processes on ${name}, round robin`
      return [label, sharedStoreTarget(label, startRedis)]
    })
  : []

describe.each([
  ['in-process server', inProcessTarget],
  ['CLI with --state-file', stateFileTarget],
  ...shared,
])('concurrency (%s)', (_name, start) => {
  let target: Target
  beforeAll(async () => {
    target = await start()
  }, 60_000)
  afterAll(() => target.close())

  describe('rate limits', () => {
    it('admits exactly 10 of 200 concurrent requests on a free account with an empty burst window', async () => {
      const { admitted, refused, others } = await burstOnFreeAccount(target.origin)
      expect(admitted).toBe(10)
      expect(refused).toHaveLength(190)
      expect(others).toEqual([])
      for (const r of refused) {
        expect(errorProblems('/v1/user', r.status, r.headers, r.body)).toEqual([])
        expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1)
      }
    })

    it('admits exactly 10 of 200 concurrent requests spread over three keys, mixed routes and statuses', async () => {
      const first = await provisionAccount(target.origin, { plan: 'free' })
      const keys = [
        first.key,
        (await addKey(target.origin, first.accountId)).key,
        (await addKey(target.origin, first.accountId)).key,
      ]
      const paths = [
        '/v1/user',
        '/v1/agents',
        '/v1/agents/agt_missing',
        '/v1/no-such-route',
        '/v1/integrations',
      ]
      const responses = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          i % 7 === 0
            ? httpJson(target.origin, 'POST', '/v1/agents', {
                key: keys[i % 3],
                body: agentBody(`burst ${i}`),
              })
            : httpJson(target.origin, 'GET', paths[i % paths.length] ?? '/v1/user', { key: keys[i % 3] }),
        ),
      )
      expect(responses.filter((r) => r.status !== 429)).toHaveLength(10)
      expect(responses.filter((r) => r.status >= 500)).toEqual([])
    })

    it('keeps the budgets of five free accounts apart under 1,000 concurrent requests', async () => {
      const results = await Promise.all(Array.from({ length: 5 }, () => burstOnFreeAccount(target.origin)))
      expect(results.map((r) => r.admitted)).toEqual([10, 10, 10, 10, 10])
    })
  })

  describe('POST with one Idempotency-Key', () => {
    it('creates exactly one agent from 100 concurrent identical creates, and replays it to the others', async () => {
      const { responses, stored } = await idempotentCreates(target.origin)
      expect(responses.map((r) => r.status)).toEqual(Array(100).fill(201))
      expect(new Set(responses.map((r) => r.body.id)).size).toBe(1)
      expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(99)
      expect(stored).toBe(1)
    })

    it('invites exactly one member from 100 concurrent identical invites', async () => {
      const { key } = await provisionAccount(target.origin, { plan: 'enterprise', limits: UNLIMITED })
      const responses = await Promise.all(
        Array.from({ length: 100 }, () =>
          httpJson(target.origin, 'POST', '/v1/team-members', {
            key,
            headers: { 'idempotency-key': 'one-member' },
            body: { email: 'once@example.com', role: 'editor' },
          }),
        ),
      )
      expect(new Set(responses.map((r) => r.body.id)).size).toBe(1)
      expect(
        responses.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined),
      ).toHaveLength(1)
      const list = await httpJson(target.origin, 'GET', '/v1/team-members?limit=100', { key })
      expect(list.body.data.filter((m: { email: string }) => m.email === 'once@example.com')).toHaveLength(1)
    })

    it('creates one agent when concurrent creates share a key but not a body; the others get 409 or the replay', async () => {
      const { key } = await provisionAccount(target.origin, { plan: 'enterprise', limits: UNLIMITED })
      const responses = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          httpJson(target.origin, 'POST', '/v1/agents', {
            key,
            headers: { 'idempotency-key': 'contested' },
            body: agentBody(`variant ${i % 3}`),
          }),
        ),
      )
      const fresh = responses.filter(
        (r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined,
      )
      expect(fresh).toHaveLength(1)
      for (const r of responses) {
        expect([201, 409]).toContain(r.status)
        if (r.status === 409) expect(r.body.error.code).toBe('idempotency_key_reused')
        if (r.status === 201) expect(r.body.name).toBe(fresh[0]?.body.name)
      }
      const list = await httpJson(target.origin, 'GET', '/v1/agents?limit=100', { key })
      expect(list.body.data).toHaveLength(1)
    })
  })

  describe('revocation under load', () => {
    it('admits no request sent after the revocation returned (5 rounds, 16 clients each)', async () => {
      for (let round = 0; round < 5; round++) {
        const { revokeStatus, admittedBefore, after } = await revocationUnderLoad(
          target.origin,
          16,
          60 + round * 20,
        )
        expect(revokeStatus).toBe(200)
        expect(admittedBefore).toBeGreaterThan(0)
        expect(after.length).toBeGreaterThanOrEqual(48)
        expect(after.filter((s) => s.status !== 401)).toEqual([])
      }
    })
  })
})

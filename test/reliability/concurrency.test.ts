import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorProblems } from './support/error-schema.ts'
import { addKey, httpJson, provisionAccount } from './support/http-json.ts'
import { agentBody, inProcessTarget, stateFileTarget, type Target } from './support/targets.ts'

const UNLIMITED = { hourly: 100_000_000, burst: 100_000_000 }

describe.each([
  ['in-process server', inProcessTarget],
  ['CLI with --state-file', stateFileTarget],
])('concurrency (%s)', (_name, start) => {
  let target: Target
  beforeAll(async () => {
    target = await start()
  })
  afterAll(() => target.close())

  describe('rate limits', () => {
    it('admits exactly 10 of 200 concurrent requests on a free account with an empty burst window', async () => {
      const { key } = await provisionAccount(target.origin, { plan: 'free' })
      const responses = await Promise.all(
        Array.from({ length: 200 }, () => httpJson(target.origin, 'GET', '/v1/user', { key })),
      )
      expect(responses.filter((r) => r.status === 200)).toHaveLength(10)
      const refused = responses.filter((r) => r.status === 429)
      expect(refused).toHaveLength(190)
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
      const accounts = await Promise.all(
        Array.from({ length: 5 }, () => provisionAccount(target.origin, { plan: 'free' })),
      )
      const responses = await Promise.all(
        Array.from({ length: 1000 }, (_, i) =>
          httpJson(target.origin, 'GET', '/v1/user', { key: accounts[i % 5]?.key }).then((r) => ({
            i,
            status: r.status,
          })),
        ),
      )
      for (let a = 0; a < 5; a++)
        expect(responses.filter((r) => r.i % 5 === a && r.status === 200)).toHaveLength(10)
    })
  })

  describe('POST with one Idempotency-Key', () => {
    it('creates exactly one agent from 100 concurrent identical creates, and replays it to the others', async () => {
      const { key } = await provisionAccount(target.origin, { plan: 'enterprise', limits: UNLIMITED })
      const responses = await Promise.all(
        Array.from({ length: 100 }, () =>
          httpJson(target.origin, 'POST', '/v1/agents', {
            key,
            headers: { 'idempotency-key': 'one-agent' },
            body: agentBody('only once'),
          }),
        ),
      )
      expect(responses.map((r) => r.status)).toEqual(Array(100).fill(201))
      expect(new Set(responses.map((r) => r.body.id)).size).toBe(1)
      expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(99)
      const list = await httpJson(target.origin, 'GET', '/v1/agents?limit=100', { key })
      expect(list.body.data).toHaveLength(1)
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
        const { accountId } = await provisionAccount(target.origin, { plan: 'enterprise', limits: UNLIMITED })
        const { keyId, key } = await addKey(target.origin, accountId)
        let revokedAt = Number.POSITIVE_INFINITY
        const seen: { sentAt: number; status: number }[] = []
        // Each client keeps going until it has sent three requests after the revocation returned.
        const client = async () => {
          let afterRevocation = 0
          while (afterRevocation < 3) {
            const sentAt = performance.now()
            if (sentAt > revokedAt) afterRevocation++
            const { status } = await httpJson(target.origin, 'GET', '/v1/user', { key })
            seen.push({ sentAt, status })
          }
        }
        const clients = Array.from({ length: 16 }, client)
        await new Promise((resolve) => setTimeout(resolve, 60 + round * 20))
        const revoked = await httpJson(target.origin, 'POST', `/_mock/keys/${keyId}/revoke`)
        revokedAt = performance.now()
        await Promise.all(clients)
        expect(revoked.status).toBe(200)
        const after = seen.filter((s) => s.sentAt > revokedAt)
        expect(seen.filter((s) => s.sentAt < revokedAt && s.status === 200).length).toBeGreaterThan(0)
        expect(after.length).toBeGreaterThanOrEqual(48)
        expect(after.filter((s) => s.status !== 401)).toEqual([])
      }
    })
  })
})

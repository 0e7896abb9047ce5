import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call } from '../support/client.ts'
import { startTransport, TRANSPORTS, type Transport } from '../support/transports.ts'

type Log = {
  id: string
  agent_id: string
  status: string
  direction: string
  duration_seconds: number | null
  created_at: string
  started_at: string | null
}

describe.each(TRANSPORTS)('seeded resources of the demo account (%s)', (kind) => {
  let mock: Transport
  let key: string
  beforeAll(async () => {
    mock = await startTransport(kind)
    key = mock.platform.demo.secretKey ?? ''
    await call(mock, 'PATCH', `/_mock/accounts/${mock.platform.demo.account.id}`, {
      body: { limits: { hourly: 100000, burst: 100000 } },
    })
  })
  afterAll(() => mock.close())

  async function allCallLogs(query = ''): Promise<Log[]> {
    const logs: Log[] = []
    let cursor = ''
    for (;;) {
      const page = await call(mock, 'GET', `/v1/call-logs?limit=100${query}${cursor}`, { key })
      expect(page.status).toBe(200)
      logs.push(...page.body.data)
      if (!page.body.has_more) return logs
      cursor = `&starting_after=${logs.at(-1)?.id}`
    }
  }

  describe('GET /call-logs', () => {
    it('lists summaries without transcripts, newest first, each pointing at an existing agent', async () => {
      const logs = await allCallLogs()
      expect(logs.length).toBeGreaterThan(50)
      const agents = await call(mock, 'GET', '/v1/agents?limit=100', { key })
      const agentIds = new Set(agents.body.data.map((a: { id: string }) => a.id))
      for (const log of logs) {
        expect(log).not.toHaveProperty('transcript')
        expect(agentIds.has(log.agent_id)).toBe(true)
      }
      const keys = logs.map((l) => `${l.created_at}|${l.id}`)
      expect(keys).toEqual([...keys].sort().reverse())
      expect(new Set(logs.map((l) => l.id)).size).toBe(logs.length)
    })

    it.each([
      ['status=completed', (l: Log) => l.status === 'completed'],
      ['direction=outbound', (l: Log) => l.direction === 'outbound'],
      ['min_duration_seconds=120', (l: Log) => l.duration_seconds !== null && l.duration_seconds >= 120],
      ['max_duration_seconds=60', (l: Log) => l.duration_seconds !== null && l.duration_seconds <= 60],
    ])('filters by %s exactly', async (query, predicate) => {
      const everything = await allCallLogs()
      const filtered = await allCallLogs(`&${query}`)
      expect(filtered.map((l) => l.id)).toEqual(everything.filter(predicate).map((l) => l.id))
    })

    it('filters by agent_id through the index, paging both ways', async () => {
      const everything = await allCallLogs()
      const agentId = everything[0]?.agent_id ?? ''
      const filtered = await allCallLogs(`&agent_id=${agentId}`)
      expect(filtered.map((l) => l.id)).toEqual(
        everything.filter((l) => l.agent_id === agentId).map((l) => l.id),
      )
      const last = filtered.at(-1)?.id
      const back = await call(
        mock,
        'GET',
        `/v1/call-logs?agent_id=${agentId}&limit=2&ending_before=${last}`,
        { key },
      )
      expect(back.body.data.map((l: Log) => l.id)).toEqual(filtered.slice(-3, -1).map((l) => l.id))
    })

    it('answers 400 when started_before is not after started_after', async () => {
      const response = await call(
        mock,
        'GET',
        '/v1/call-logs?started_after=2026-03-02T00:00:00Z&started_before=2026-03-01T00:00:00Z',
        { key },
      )
      expect(response.status).toBe(400)
    })
  })

  describe('GET /call-logs/{call_log_id} and DELETE', () => {
    it('returns the full object with its transcript, then deletes it', async () => {
      const [first] = await allCallLogs()
      const full = await call(mock, 'GET', `/v1/call-logs/${first?.id}`, { key })
      expect(full.status).toBe(200)
      expect(Array.isArray(full.body.transcript)).toBe(true)
      const deleted = await call(mock, 'DELETE', `/v1/call-logs/${first?.id}`, { key })
      expect(deleted.body).toEqual({ id: first?.id, object: 'call_log', deleted: true })
      expect((await call(mock, 'GET', `/v1/call-logs/${first?.id}`, { key })).status).toBe(404)
    })
  })

  describe('GET /analytics/calls', () => {
    it('adds up: totals equal the listed call logs, and the series add up to the totals', async () => {
      const now = new Date(mock.platform.clock.now())
      const end = new Date(Math.floor(now.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z')
      const start = new Date(now.getTime() - 60 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z')
      const response = await call(
        mock,
        'GET',
        `/v1/analytics/calls?start=${start}&end=${end}&granularity=week&group_by=agent_id`,
        { key },
      )
      expect(response.status).toBe(200)
      const logs = (await allCallLogs()).filter((l) => l.created_at >= start && l.created_at < end)
      const { totals, series, groups } = response.body
      expect(totals.call_count).toBe(logs.length)
      expect(totals.completed_count).toBe(logs.filter((l) => l.status === 'completed').length)
      const sum = (field: string) =>
        series.reduce(
          (acc: number, b: { metrics: Record<string, number> }) => acc + (b.metrics[field] ?? 0),
          0,
        )
      for (const field of [
        'call_count',
        'completed_count',
        'analyzed_count',
        'successful_count',
        'total_duration_seconds',
      ])
        expect(sum(field)).toBe(totals[field])
      expect(Math.round(sum('total_cost_usd') * 10_000)).toBe(Math.round(totals.total_cost_usd * 10_000))
      expect(
        groups.reduce((acc: number, g: { totals: { call_count: number } }) => acc + g.totals.call_count, 0),
      ).toBe(totals.call_count)
      expect(series[0].start).toBe(start)
      expect(series.at(-1).end).toBe(end)
    })

    it.each([
      ['end before start', 'start=2026-03-02T00:00:00Z&end=2026-03-01T00:00:00Z', 'end'],
      ['too many buckets', 'start=2026-01-01T00:00:00Z&end=2026-03-01T00:00:00Z&granularity=hour', 'start'],
      ['an unknown time zone', 'timezone=Mars/Olympus', 'timezone'],
    ])('answers 400 for %s', async (_name, query, param) => {
      const response = await call(mock, 'GET', `/v1/analytics/calls?${query}`, { key })
      expect(response.status).toBe(400)
      expect(response.body.error.param).toBe(param)
    })
  })

  describe('integrations', () => {
    it('lists the seven providers and never returns credentials', async () => {
      const list = await call(mock, 'GET', '/v1/integrations', { key })
      expect(list.body.data.map((i: { id: string }) => i.id)).toEqual([
        'twilio',
        'salesforce',
        'hubspot',
        'google_calendar',
        'slack',
        'zapier',
        'webhook',
      ])
      const secret = 'hubspot-private-app-token-9f8e7d6c'
      const updated = await call(mock, 'PATCH', '/v1/integrations/hubspot', {
        key,
        body: { enabled: true, credentials: { access_token: secret } },
      })
      expect(updated.status).toBe(200)
      expect(updated.body).toMatchObject({ status: 'connected', enabled: true, credential_hint: '...7d6c' })
      expect(JSON.stringify(updated.body)).not.toContain(secret)
      const fetched = await call(mock, 'GET', '/v1/integrations/hubspot', { key })
      expect(JSON.stringify(fetched.body)).not.toContain(secret)
      const disconnected = await call(mock, 'PATCH', '/v1/integrations/hubspot', {
        key,
        body: { credentials: null },
      })
      expect(disconnected.body).toMatchObject({
        status: 'not_connected',
        credential_hint: null,
        connected_at: null,
      })
    })

    it('hints at a credential ending in astral characters with its last four characters, never half of one', async () => {
      // Found by exploration: the hint took the last four UTF-16 units, so a credential ending in an emoji gave
      // a hint of three characters and a lone surrogate, which breaks the contract's pattern (and JSON text).
      const updated = await call(mock, 'PATCH', '/v1/integrations/hubspot', {
        key,
        body: { enabled: true, credentials: { access_token: 'token-x😀y😀' } },
      })
      expect(updated.status).toBe(200)
      expect(updated.body.credential_hint).toBe('...x😀y😀')
    })
  })

  describe('team members', () => {
    it('invites, changes the role, and removes a member', async () => {
      const invited = await call(mock, 'POST', '/v1/team-members', {
        key,
        body: { email: 'Sam.Okafor@example.com' },
      })
      expect(invited.status).toBe(201)
      expect(invited.body).toMatchObject({
        email: 'sam.okafor@example.com',
        role: 'viewer',
        status: 'invited',
        joined_at: null,
      })
      const changed = await call(mock, 'PATCH', `/v1/team-members/${invited.body.id}`, {
        key,
        body: { role: 'admin' },
      })
      expect(changed.body.role).toBe('admin')
      const removed = await call(mock, 'DELETE', `/v1/team-members/${invited.body.id}`, { key })
      expect(removed.body).toEqual({ id: invited.body.id, object: 'team_member', deleted: true })
      expect((await call(mock, 'GET', `/v1/team-members/${invited.body.id}`, { key })).status).toBe(404)
    })

    it('refuses to invite an owner', async () => {
      const response = await call(mock, 'POST', '/v1/team-members', {
        key,
        body: { email: 'x@example.com', role: 'owner' },
      })
      expect(response.status).toBe(422)
    })
  })
})

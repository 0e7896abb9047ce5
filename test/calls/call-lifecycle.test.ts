import { describe, expect, it } from 'vitest'
import { advance, firstAgent, frozenPlatform, send } from './engine-client.ts'

type Outcome = 'completed' | 'no_answer' | 'busy' | 'failed' | 'canceled'

describe('POST /_mock/accounts/{account_id}/calls', () => {
  it('answers 201 with a queued call log that GET /v1/call-logs shows', async () => {
    const { platform, key, accountId } = await frozenPlatform()
    const agent = await firstAgent(platform, key)
    const started = await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, {
      body: { agent_id: agent.id },
    })
    expect(started.status).toBe(201)
    expect(started.body).toMatchObject({
      object: 'call_log',
      agent_id: agent.id,
      status: 'queued',
      started_at: null,
      ended_at: null,
      transcript: [],
    })
    const listed = await send(platform, 'GET', '/v1/call-logs?limit=1', { key })
    expect(listed.body.data[0].id).toBe(started.body.id)
    expect(listed.body.data[0].status).toBe('queued')
  })

  const stages: { outcome: Outcome; want: [seconds: number, status: string][] }[] = [
    {
      outcome: 'completed',
      want: [
        [0.5, 'queued'],
        [0.5, 'ringing'],
        [3.9, 'ringing'],
        [0.1, 'in_progress'],
        [59.9, 'in_progress'],
        [0.1, 'completed'],
      ],
    },
    {
      outcome: 'no_answer',
      want: [
        [1, 'ringing'],
        [3.9, 'ringing'],
        [0.1, 'no_answer'],
      ],
    },
    {
      outcome: 'busy',
      want: [
        [1, 'ringing'],
        [4, 'busy'],
      ],
    },
    {
      outcome: 'failed',
      want: [
        [1, 'ringing'],
        [4, 'failed'],
      ],
    },
    {
      outcome: 'canceled',
      want: [
        [0.9, 'queued'],
        [0.1, 'ringing'],
        [4, 'canceled'],
      ],
    },
  ]

  it.each(stages)(
    'moves a $outcome call through its states as the clock advances',
    async ({ outcome, want }) => {
      const { platform, key, accountId } = await frozenPlatform()
      const agent = await firstAgent(platform, key)
      const started = await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, {
        body: { agent_id: agent.id, outcome },
      })
      const seen: string[] = []
      for (const [seconds] of want) {
        await advance(platform, seconds)
        seen.push((await send(platform, 'GET', `/v1/call-logs/${started.body.id}`, { key })).body.status)
      }
      expect(seen).toEqual(want.map(([, status]) => status))
    },
  )

  it('fills in the timing, cost, end reason and transcript of a completed call, then its analysis 120 s later', async () => {
    const { platform, key, accountId } = await frozenPlatform()
    const agent = await firstAgent(platform, key)
    const started = await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, {
      body: { agent_id: agent.id, ring_seconds: 6, duration_seconds: 30 },
    })
    const id = started.body.id
    const get = async () => (await send(platform, 'GET', `/v1/call-logs/${id}`, { key })).body
    await advance(platform, 1)
    const ringing = await get()
    expect(ringing.started_at).toBe('2026-03-12T14:00:01Z')
    await advance(platform, 6 + 15)
    const talking = await get()
    expect(talking.status).toBe('in_progress')
    expect(talking.transcript.length).toBeGreaterThan(0)
    expect(talking.cost_usd).toBeNull()
    await advance(platform, 15)
    const ended = await get()
    expect(ended).toMatchObject({
      status: 'completed',
      ended_at: '2026-03-12T14:00:37Z',
      duration_seconds: 36,
      analysis: null,
    })
    expect(ended.transcript.length).toBeGreaterThanOrEqual(talking.transcript.length)
    expect(ended.cost_usd).toBeGreaterThan(0)
    expect(ended.end_reason).not.toBeNull()
    for (const entry of ended.transcript) expect(entry.start_seconds).toBeLessThan(36)
    await advance(platform, 119)
    expect((await get()).analysis).toBeNull()
    await advance(platform, 1)
    expect((await get()).analysis).toMatchObject({
      sentiment: expect.any(String),
      successful: expect.any(Boolean),
    })
  })

  it('ends a call that was never answered with no cost, no transcript and no end reason (failed: error)', async () => {
    const { platform, key, accountId } = await frozenPlatform()
    const agent = await firstAgent(platform, key)
    const ids: Record<string, string> = {}
    for (const outcome of ['no_answer', 'failed'] as const)
      ids[outcome] = (
        await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, {
          body: { agent_id: agent.id, outcome, ring_seconds: 20 },
        })
      ).body.id
    await advance(platform, 3600)
    const noAnswer = (await send(platform, 'GET', `/v1/call-logs/${ids.no_answer}`, { key })).body
    expect(noAnswer).toMatchObject({
      status: 'no_answer',
      cost_usd: 0,
      end_reason: null,
      transcript: [],
      duration_seconds: 20,
      analysis: null,
    })
    const failed = (await send(platform, 'GET', `/v1/call-logs/${ids.failed}`, { key })).body
    expect(failed).toMatchObject({ status: 'failed', cost_usd: 0, end_reason: 'error', analysis: null })
  })

  it('counts the call in GET /v1/analytics/calls at each stage', async () => {
    const { platform, key, accountId } = await frozenPlatform()
    const agent = await firstAgent(platform, key)
    const analytics = async () =>
      (await send(platform, 'GET', `/v1/analytics/calls?granularity=total&agent_id=${agent.id}`, { key }))
        .body.totals
    const before = await analytics()
    await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, { body: { agent_id: agent.id } })
    await advance(platform, 1)
    const during = await analytics()
    expect(during.call_count).toBe(before.call_count + 1)
    expect(during.completed_count).toBe(before.completed_count)
    await advance(platform, 64)
    const after = await analytics()
    expect(after.completed_count).toBe(before.completed_count + 1)
    expect(after.total_duration_seconds).toBe(before.total_duration_seconds + 64)
    await advance(platform, 120)
    expect((await analytics()).analyzed_count).toBe(before.analyzed_count + 1)
  })

  it('stops a call whose log was deleted', async () => {
    const { platform, key, accountId } = await frozenPlatform()
    const agent = await firstAgent(platform, key)
    const started = await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, {
      body: { agent_id: agent.id },
    })
    await advance(platform, 2)
    expect((await send(platform, 'DELETE', `/v1/call-logs/${started.body.id}`, { key })).status).toBe(200)
    await advance(platform, 600)
    expect((await send(platform, 'GET', `/v1/call-logs/${started.body.id}`, { key })).status).toBe(404)
    expect(platform.nextDueAt()).toBeUndefined()
  })
})

describe('GET /_mock/accounts/{account_id}/calls and /agents', () => {
  it('lists the newest calls with their current status, and the agents with their webhooks', async () => {
    const { platform, key, accountId } = await frozenPlatform()
    const agent = await firstAgent(platform, key)
    const agents = await send(platform, 'GET', `/_mock/accounts/${accountId}/agents`)
    expect(agents.status).toBe(200)
    expect(agents.body.data[0]).toEqual({
      id: agent.id,
      name: agent.name,
      status: agent.status,
      webhook_url: agent.webhook_url,
      webhook_events: agent.webhook_events,
    })
    const started = await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, {
      body: { agent_id: agent.id },
    })
    await advance(platform, 1)
    const calls = await send(platform, 'GET', `/_mock/accounts/${accountId}/calls?limit=2`)
    expect(calls.body.data).toHaveLength(2)
    expect(calls.body.data[0]).toMatchObject({ id: started.body.id, status: 'ringing' })
    expect(calls.body.has_more).toBe(true)
  })
})

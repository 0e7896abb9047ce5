import { describe, expect, it } from 'vitest'
import { errorProblems } from '../reliability/support/error-schema.ts'
import { firstAgent, frozenPlatform, send } from './engine-client.ts'

describe('POST /_mock/accounts/{account_id}/calls with bad input', () => {
  const cases: {
    name: string
    body: (agentId: string, otherAgentId: string) => unknown
    status: number
    param: string
  }[] = [
    {
      name: 'an unknown agent',
      body: () => ({ agent_id: 'agt_doesNotExist1' }),
      status: 422,
      param: 'agent_id',
    },
    {
      name: 'an agent of another account',
      body: (_, other) => ({ agent_id: other }),
      status: 422,
      param: 'agent_id',
    },
    {
      name: 'an agent id of the wrong shape',
      body: () => ({ agent_id: 'call_123' }),
      status: 422,
      param: 'agent_id',
    },
    { name: 'no agent', body: () => ({}), status: 422, param: 'agent_id' },
    {
      name: 'an outcome outside the enum',
      body: (id) => ({ agent_id: id, outcome: 'exploded' }),
      status: 422,
      param: 'outcome',
    },
    {
      name: 'negative ring seconds',
      body: (id) => ({ agent_id: id, ring_seconds: -1 }),
      status: 422,
      param: 'ring_seconds',
    },
    {
      name: 'negative duration seconds',
      body: (id) => ({ agent_id: id, duration_seconds: -5 }),
      status: 422,
      param: 'duration_seconds',
    },
    {
      name: 'a duration that is not a number',
      body: (id) => ({ agent_id: id, duration_seconds: '60' }),
      status: 422,
      param: 'duration_seconds',
    },
    {
      name: 'an unknown field',
      body: (id) => ({ agent_id: id, colour: 'blue' }),
      status: 422,
      param: 'colour',
    },
    {
      name: 'a phone number not in E.164',
      body: (id) => ({ agent_id: id, from_number: '555-0100' }),
      status: 422,
      param: 'from_number',
    },
    {
      name: 'an outbound web call',
      body: (id) => ({ agent_id: id, channel: 'web', direction: 'outbound' }),
      status: 422,
      param: 'direction',
    },
    {
      name: 'a web call with a number',
      body: (id) => ({ agent_id: id, channel: 'web', to_number: '+14155550100' }),
      status: 422,
      param: 'to_number',
    },
  ]

  it.each(cases)(
    'answers $status naming $param for $name, and creates nothing',
    async ({ body, status, param }) => {
      const { platform, key, accountId } = await frozenPlatform()
      const agent = await firstAgent(platform, key)
      const other = await send(platform, 'POST', '/_mock/accounts', { body: { plan: 'pro' } })
      const otherKey = await send(platform, 'POST', `/_mock/accounts/${other.body.id}/keys`, {
        body: { type: 'secret', name: 'other' },
      })
      const otherAgent = await send(platform, 'POST', '/v1/agents', {
        key: otherKey.body.value,
        body: {
          name: 'Other',
          system_prompt: 'Be brief.',
          voice: { provider: 'openai', voice_id: 'alloy' },
          llm: { provider: 'openai', model: 'gpt-4o' },
        },
      })
      expect(otherAgent.status).toBe(201)
      const before = platform.snapshot()
      const answer = await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, {
        body: body(agent.id, otherAgent.body.id),
      })
      expect(answer.status).toBe(status)
      expect(answer.body.error.param).toBe(param)
      // The error body the control-plane contract promises (its FieldError codes among them).
      expect(
        errorProblems(`/_mock/accounts/${accountId}/calls`, status, answer.headers, answer.body),
      ).toEqual([])
      expect(answer.body.error.errors.map((e: { param: string }) => e.param)).toContain(param)
      const after = platform.snapshot()
      for (const table of ['call_logs', 'calls', 'schedule', 'webhook_deliveries'])
        expect(after.tables[table], table).toEqual(before.tables[table])
      expect(platform.nextDueAt()).toBeUndefined()
    },
  )

  it('answers 404 naming account_id for an unknown account', async () => {
    const { platform, key } = await frozenPlatform()
    const agent = await firstAgent(platform, key)
    const answer = await send(platform, 'POST', '/_mock/accounts/usr_unknown000001/calls', {
      body: { agent_id: agent.id },
    })
    expect(answer.status).toBe(404)
    expect(answer.body.error.param).toBe('account_id')
  })
})

describe('api.calls.start (in-process)', () => {
  it('rejects bad input with the message naming the field', async () => {
    const { platform } = await frozenPlatform()
    await expect(platform.calls.start({ agent_id: 'agt_doesNotExist1' })).rejects.toThrow(/agent_id/)
  })
})

describe('POST /_mock/accounts/{account_id}/calls past the bound', () => {
  it('answers 409 limit_reached for the 101st call under way, and creates nothing', async () => {
    const { platform, key, accountId } = await frozenPlatform()
    const agent = await firstAgent(platform, key)
    for (let i = 0; i < 100; i++)
      expect(
        (await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, { body: { agent_id: agent.id } }))
          .status,
      ).toBe(201)
    const before = platform.snapshot().tables.call_logs?.length
    const refused = await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, {
      body: { agent_id: agent.id },
    })
    expect(refused.status).toBe(409)
    expect(refused.body.error).toMatchObject({ code: 'limit_reached', param: 'account_id' })
    expect(platform.snapshot().tables.call_logs?.length).toBe(before)
    // Once they have ended and been analysed, there is room again.
    await send(platform, 'POST', '/_mock/clock/advance', { body: { seconds: 200 } })
    expect(
      (await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, { body: { agent_id: agent.id } }))
        .status,
    ).toBe(201)
  })
})

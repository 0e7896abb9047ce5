import { describe, expect, it } from 'vitest'
import { createContract } from '../../contracts/contract/contract.ts'
import { type Answer, compareAnswers } from '../../contracts/explore/compare-answers.ts'
import { IdMap } from '../../contracts/explore/id-map.ts'
import { LEFT_OPEN } from '../../contracts/explore/left-open.ts'

const contract = createContract()
const URLS = { target: 'https://api.example.com/v1/agents', model: 'http://model.invalid/v1/agents' }

const RATE = {
  'request-id': 'req_target0001',
  ratelimit: '"hourly";r=57;t=1843, "burst";r=3;t=22',
  'ratelimit-policy': '"hourly";q=100;w=3600, "burst";q=10;w=60',
  'x-ratelimit-limit': '10',
  'x-ratelimit-remaining': '3',
  'x-ratelimit-reset': '1773310822',
}

const agent = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  object: 'agent',
  name: 'Front desk',
  description: null,
  status: 'active',
  language: 'en-US',
  system_prompt: '',
  first_message: null,
  first_speaker: 'agent',
  voice: { provider: 'openai', voice_id: 'alloy', speed: 1 },
  llm: { provider: 'openai', model: 'gpt-4o', temperature: 0.7, max_tokens: 1024 },
  max_call_duration_seconds: 1800,
  recording_enabled: false,
  webhook_url: null,
  webhook_events: ['call.ended', 'call.analyzed'],
  metadata: {},
  created_at: '2026-03-04T09:15:27Z',
  updated_at: '2026-03-04T09:15:27Z',
  ...extra,
})

const error = (status: number, type: string, code: string, extra: Record<string, unknown> = {}) => ({
  status,
  headers: { ...RATE },
  body: {
    error: { type, code, message: 'Something.', param: 'agent_id', request_id: 'req_target0001', ...extra },
  },
})

const callLog = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  object: 'call_log',
  agent_id: 'agt_T1',
  channel: 'phone',
  direction: 'inbound',
  from_number: '+14155550187',
  to_number: '+14155550142',
  status: 'completed',
  end_reason: 'customer_ended',
  started_at: '2026-03-04T09:15:28Z',
  ended_at: '2026-03-04T09:16:28Z',
  duration_seconds: 60,
  cost_usd: 0.1,
  transcript: [{ role: 'agent', text: 'Hello.', start_seconds: 0 }],
  recording_url: 'https://recordings.example.com/v1/call_T1.mp3',
  analysis: { summary: 'A call.', sentiment: 'positive', successful: true },
  metadata: {},
  created_at: '2026-03-04T09:15:27Z',
  ...extra,
})

interface Case {
  name: string
  operationId: string
  target: Answer
  model: Answer
  /** Where the first difference is, or undefined when the answers agree as the contract reads them. */
  differs?: string
  head?: boolean
}

const ok = (body: unknown, headers: Record<string, string> = {}, status = 200): Answer => ({
  status,
  headers: { ...RATE, ...headers },
  body,
})

/** Known pairs: the target's agt_T1 is the model's agt_M1, and so on. */
function ids(): IdMap {
  const map = new IdMap()
  map.set('agt_T1', 'agt_M1')
  map.set('agt_T2', 'agt_M2')
  map.set('call_T1', 'call_M1')
  // Drawn so that the two sides sort them the other way round (agt_T1 < agt_T3, agt_M0 < agt_M1).
  map.set('agt_T3', 'agt_M0')
  return map
}

const metrics = (calls: number) => ({
  call_count: calls,
  completed_count: calls,
  analyzed_count: 0,
  successful_count: 0,
  total_duration_seconds: 60 * calls,
  avg_duration_seconds: calls ? 60 : null,
  total_cost_usd: 0,
  avg_cost_usd: calls ? 0 : null,
  success_rate: null,
  sentiment: { positive: 0, neutral: 0, negative: 0 },
})

/** Analytics grouped by agent: `groups` as [agent ID, calls] pairs, in the order given. */
const grouped = (groups: [string, number][]) =>
  ok({
    object: 'call_analytics',
    start: '2026-03-01T00:00:00Z',
    end: '2026-03-02T00:00:00Z',
    granularity: 'total',
    timezone: 'UTC',
    group_by: 'agent_id',
    agent_id: null,
    totals: metrics(groups.reduce((sum, [, n]) => sum + n, 0)),
    series: [{ start: '2026-03-01T00:00:00Z', ...metrics(groups.reduce((sum, [, n]) => sum + n, 0)) }],
    groups: groups.map(([value, n]) => ({ value, totals: metrics(n) })),
  })

const CASES: Case[] = [
  {
    name: "analytics groups tied on call_count, each side's in the order of its own agent IDs",
    operationId: 'getCallAnalytics',
    target: grouped([
      ['agt_T2', 2],
      ['agt_T1', 1],
      ['agt_T3', 1],
    ]),
    model: grouped([
      ['agt_M2', 2],
      ['agt_M0', 1],
      ['agt_M1', 1],
    ]),
  },
  {
    name: "analytics groups tied on call_count, the target's not by value ascending",
    operationId: 'getCallAnalytics',
    target: grouped([
      ['agt_T2', 2],
      ['agt_T3', 1],
      ['agt_T1', 1],
    ]),
    model: grouped([
      ['agt_M2', 2],
      ['agt_M0', 1],
      ['agt_M1', 1],
    ]),
    differs: 'body.groups',
  },
  {
    name: 'the same answer',
    operationId: 'getAgent',
    target: ok(agent('agt_T1')),
    model: ok(agent('agt_M1')),
  },
  {
    name: 'another status',
    operationId: 'getAgent',
    target: ok(agent('agt_T1')),
    model: error(404, 'not_found_error', 'resource_not_found'),
    differs: 'status',
  },
  {
    name: 'another error code',
    operationId: 'getAgent',
    target: error(404, 'not_found_error', 'route_not_found'),
    model: error(404, 'not_found_error', 'resource_not_found'),
    differs: 'body.error.code',
  },
  {
    name: 'another error message, no param, another request_id (all open)',
    operationId: 'getAgent',
    target: {
      ...error(404, 'not_found_error', 'resource_not_found'),
      body: { error: { type: 'not_found_error', code: 'resource_not_found', message: 'Gone.' } },
    },
    model: error(404, 'not_found_error', 'resource_not_found', {
      request_id: 'req_model0001',
      message: 'Other.',
    }),
  },
  {
    name: 'a timestamp with fractional seconds for the same instant',
    operationId: 'getAgent',
    target: ok(agent('agt_T1', { created_at: '2026-03-04T09:15:27.250Z' })),
    model: ok(agent('agt_M1')),
  },
  {
    name: 'a timestamp a second later',
    operationId: 'getAgent',
    target: ok(agent('agt_T1', { updated_at: '2026-03-04T09:15:28Z' })),
    model: ok(agent('agt_M1')),
    differs: 'body.updated_at',
  },
  {
    name: 'the ID of another object than the one the model answered',
    operationId: 'getAgent',
    target: ok(agent('agt_T2')),
    model: ok(agent('agt_M1')),
    differs: 'body.id',
  },
  {
    name: 'a field the model has and the target lacks',
    operationId: 'getAgent',
    target: ok((({ system_prompt: _, ...rest }) => rest)(agent('agt_T1'))),
    model: ok(agent('agt_M1')),
    differs: 'body.system_prompt',
  },
  {
    name: 'null where the model clears nothing',
    operationId: 'getAgent',
    target: ok(agent('agt_T1', { description: null })),
    model: ok(agent('agt_M1', { description: 'Kept.' })),
    differs: 'body.description',
  },
  {
    name: 'webhook_events in another order (a set: uniqueItems)',
    operationId: 'getAgent',
    target: ok(agent('agt_T1', { webhook_events: ['call.analyzed', 'call.ended'] })),
    model: ok(agent('agt_M1')),
  },
  {
    name: 'a metadata key more',
    operationId: 'getAgent',
    target: ok(agent('agt_T1', { metadata: { a: 'b' } })),
    model: ok(agent('agt_M1')),
    differs: 'body.metadata.a',
  },
  {
    name: 'agents listed in another order',
    operationId: 'listAgents',
    target: ok({ object: 'list', data: [agent('agt_T2'), agent('agt_T1')], has_more: false }),
    model: ok({ object: 'list', data: [agent('agt_M1'), agent('agt_M2')], has_more: false }),
    differs: 'body.data[0].id',
  },
  {
    name: 'has_more otherwise',
    operationId: 'listAgents',
    target: ok({ object: 'list', data: [agent('agt_T1')], has_more: true }),
    model: ok({ object: 'list', data: [agent('agt_M1')], has_more: false }),
    differs: 'body.has_more',
  },
  {
    name: 'integrations in another order (their order is open)',
    operationId: 'listIntegrations',
    target: ok({ object: 'list', data: [integration('slack'), integration('twilio')], has_more: false }),
    model: ok({ object: 'list', data: [integration('twilio'), integration('slack')], has_more: false }),
  },
  {
    name: 'an integration the model does not list',
    operationId: 'listIntegrations',
    target: ok({ object: 'list', data: [integration('slack'), integration('zapier')], has_more: false }),
    model: ok({ object: 'list', data: [integration('twilio'), integration('slack')], has_more: false }),
    differs: 'body.data',
  },
  {
    name: 'a relative Location for the same object',
    operationId: 'createAgent',
    target: ok(agent('agt_T1'), { location: '/v1/agents/agt_T1' }, 201),
    model: ok(agent('agt_M1'), { location: 'http://model.invalid/v1/agents/agt_M1' }, 201),
  },
  {
    name: 'a Location naming another object',
    operationId: 'createAgent',
    target: ok(agent('agt_T1'), { location: '/v1/agents/agt_T2' }, 201),
    model: ok(agent('agt_M1'), { location: 'http://model.invalid/v1/agents/agt_M1' }, 201),
    differs: 'header location',
  },
  {
    name: 'Idempotent-Replayed on one side only',
    operationId: 'createAgent',
    target: ok(agent('agt_T1'), { location: '/v1/agents/agt_T1', 'idempotent-replayed': 'true' }, 201),
    model: ok(agent('agt_M1'), { location: 'http://model.invalid/v1/agents/agt_M1' }, 201),
    differs: 'header idempotent-replayed',
  },
  {
    name: 'a RateLimit t a second apart',
    operationId: 'getAgent',
    target: ok(agent('agt_T1'), { ratelimit: '"hourly";r=57;t=1844, "burst";r=3;t=21' }),
    model: ok(agent('agt_M1')),
  },
  {
    name: 'a RateLimit r one less',
    operationId: 'getAgent',
    target: ok(agent('agt_T1'), { ratelimit: '"hourly";r=57;t=1843, "burst";r=2;t=22' }),
    model: ok(agent('agt_M1')),
    differs: 'header ratelimit',
  },
  {
    name: 'X-RateLimit-Remaining otherwise',
    operationId: 'getAgent',
    target: ok(agent('agt_T1'), { 'x-ratelimit-remaining': '4' }),
    model: ok(agent('agt_M1')),
    differs: 'header x-ratelimit-remaining',
  },
  {
    name: 'Retry-After two seconds apart',
    operationId: 'getAgent',
    target: {
      ...error(429, 'rate_limit_error', 'rate_limit_exceeded', { policy: 'burst', retry_after: 22 }),
      headers: { ...RATE, 'retry-after': '24' },
    },
    model: {
      ...error(429, 'rate_limit_error', 'rate_limit_exceeded', { policy: 'burst', retry_after: 22 }),
      headers: { ...RATE, 'retry-after': '22' },
    },
    differs: 'header retry-after',
  },
  {
    name: 'Retry-After and error.retry_after a second apart',
    operationId: 'getAgent',
    target: {
      ...error(429, 'rate_limit_error', 'rate_limit_exceeded', { policy: 'burst', retry_after: 23 }),
      headers: { ...RATE, 'retry-after': '23' },
    },
    model: {
      ...error(429, 'rate_limit_error', 'rate_limit_exceeded', { policy: 'burst', retry_after: 22 }),
      headers: { ...RATE, 'retry-after': '22' },
    },
  },
  {
    name: 'a challenge without realm',
    operationId: 'getAgent',
    target: {
      status: 401,
      headers: { 'request-id': 'req_t', 'www-authenticate': 'Bearer' },
      body: { error: { type: 'authentication_error', code: 'invalid_api_key', message: 'No key.' } },
    },
    model: {
      status: 401,
      headers: { 'request-id': 'req_m', 'www-authenticate': 'Bearer realm="api"' },
      body: { error: { type: 'authentication_error', code: 'invalid_api_key', message: 'Missing key.' } },
    },
  },
  {
    name: 'a 422 listing the same fields in another order, with other codes and messages',
    operationId: 'createAgent',
    target: error(422, 'validation_error', 'validation_failed', {
      errors: [
        { param: 'voice.speed', code: 'type', message: 'x' },
        { param: 'name', code: 'required', message: 'y' },
      ],
    }),
    model: error(422, 'validation_error', 'validation_failed', {
      errors: [
        { param: 'name', code: 'required', message: 'name is required.' },
        { param: 'voice.speed', code: 'maximum', message: 'z' },
      ],
    }),
  },
  {
    name: 'a 422 that names a field less',
    operationId: 'createAgent',
    target: error(422, 'validation_error', 'validation_failed', {
      errors: [{ param: 'name', code: 'required', message: 'y' }],
    }),
    model: error(422, 'validation_error', 'validation_failed', {
      errors: [
        { param: 'name', code: 'required', message: 'name is required.' },
        { param: 'voice.speed', code: 'maximum', message: 'z' },
      ],
    }),
    differs: 'body.error.errors',
  },
  {
    name: "a simulated call's own words, price and recording (the target's simulation)",
    operationId: 'getCallLog',
    target: ok(
      callLog('call_T1', {
        transcript: [],
        cost_usd: 0.2,
        end_reason: 'agent_ended',
        recording_url: 'https://r.example/x.mp3',
        analysis: { summary: 'B', sentiment: 'negative', successful: false },
      }),
    ),
    model: ok(callLog('call_M1', { agent_id: 'agt_M1' })),
  },
  {
    name: 'a call that never connected with no price, where the control plane fixes cost_usd 0',
    operationId: 'getCallLog',
    target: ok(
      callLog('call_T1', { status: 'no_answer', end_reason: null, cost_usd: null, duration_seconds: 0 }),
    ),
    model: ok(
      callLog('call_M1', {
        agent_id: 'agt_M1',
        status: 'no_answer',
        end_reason: null,
        cost_usd: 0,
        duration_seconds: 0,
      }),
    ),
    differs: 'body.cost_usd',
  },
  {
    name: "a call cut at its agent's longest duration ended by the agent, where the control plane fixes max_duration_reached",
    operationId: 'getCallLog',
    target: ok(callLog('call_T1', { end_reason: 'agent_ended' })),
    model: ok(callLog('call_M1', { agent_id: 'agt_M1', end_reason: 'max_duration_reached' })),
    differs: 'body.end_reason',
  },
  {
    name: 'a call log without the analysis the model has',
    operationId: 'getCallLog',
    target: ok(callLog('call_T1', { analysis: null })),
    model: ok(callLog('call_M1', { agent_id: 'agt_M1' })),
    differs: 'body.analysis',
  },
  {
    name: 'a HEAD answer, whose body is not compared',
    operationId: 'getAgent',
    target: ok(undefined),
    model: ok(agent('agt_M1')),
    head: true,
  },
]

function integration(id: string) {
  return {
    id,
    object: 'integration',
    name: id,
    enabled: false,
    status: 'not_connected',
    config: {},
    credential_hint: null,
    connected_at: null,
    updated_at: '2026-03-04T09:15:27Z',
  }
}

describe('compareAnswers: what the contract fixes differs, what it leaves open does not', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const differences = compareAnswers({
      contract,
      operation: contract.operation(c.operationId),
      head: c.head,
      target: c.target,
      model: c.model,
      urls: URLS,
      ids: ids(),
    })
    if (c.differs) expect(differences[0]?.at, JSON.stringify(differences)).toBe(c.differs)
    else expect(differences).toEqual([])
  })

  it('names the contract place and sentence that decide a difference', () => {
    const [difference] = compareAnswers({
      contract,
      operation: contract.operation('getAgent'),
      target: ok(agent('agt_T1', { updated_at: '2026-03-04T09:15:28Z' })),
      model: ok(agent('agt_M1')),
      urls: URLS,
      ids: ids(),
    })
    expect(difference?.decidedBy).toContain('#/components/schemas/Agent/properties/updated_at')
    const [status] = compareAnswers({
      contract,
      operation: contract.operation('getAgent'),
      target: ok(agent('agt_T1')),
      model: error(404, 'not_found_error', 'resource_not_found'),
      urls: URLS,
      ids: ids(),
    })
    expect(status?.decidedBy).toMatch(/^getAgent 404: #\/components\/responses\/NotFound "404 - /)
    expect(status).toMatchObject({ target: '200', model: '404 not_found_error/resource_not_found' })
  })

  it("compares a browser's CORS headers (lists as sets) and a path the contract does not define by its error", () => {
    const cors = {
      'access-control-allow-origin': 'https://app.example',
      'access-control-expose-headers': 'Request-Id, RateLimit, RateLimit-Policy, Retry-After',
    }
    const answer = (headers: Record<string, string>, id = 'agt_T1') => ({
      ...ok(agent(id)),
      headers: { ...RATE, ...headers },
    })
    const compare = (target: Answer, model: Answer, extra: { cors?: boolean; preflight?: boolean } = {}) =>
      compareAnswers({
        contract,
        operation: extra.preflight ? undefined : contract.operation('getAgent'),
        ...extra,
        target,
        model,
        urls: URLS,
        ids: ids(),
      }).map((d) => d.at)
    const reordered = {
      ...cors,
      'access-control-expose-headers': 'retry-after, ratelimit-policy, RateLimit, Request-Id',
    }
    expect(compare(answer(reordered), answer(cors, 'agt_M1'), { cors: true })).toEqual([])
    expect(compare(answer({}), answer(cors, 'agt_M1'), { cors: true })).toEqual([
      'header access-control-allow-origin',
      'header access-control-expose-headers',
    ])
    // Without an Origin, a browser's headers are not the question.
    expect(compare(answer({}), answer(cors, 'agt_M1'), {})).toEqual([])
    const preflight = (allowed: string) => ({
      status: 204,
      headers: { 'access-control-allow-origin': '*', 'access-control-allow-headers': allowed },
      body: undefined,
    })
    expect(
      compare(
        preflight('Authorization, Content-Type'),
        preflight('Authorization, Content-Type, Idempotency-Key'),
        {
          preflight: true,
        },
      ),
    ).toEqual(['header access-control-allow-headers'])
    // A path the contract does not define: the same status with another error is a difference.
    const [route] = compareAnswers({
      contract,
      target: error(404, 'not_found_error', 'resource_not_found'),
      model: error(404, 'not_found_error', 'route_not_found'),
      urls: URLS,
      ids: ids(),
    })
    expect(route).toMatchObject({
      at: 'body.error.code',
      target: '"resource_not_found"',
      model: '"route_not_found"',
    })
  })

  it('learns the IDs of objects neither side was known to hold, one to one', () => {
    const map = new IdMap()
    const compare = (t: string, m: string) =>
      compareAnswers({
        contract,
        operation: contract.operation('getAgent'),
        target: ok(agent(t)),
        model: ok(agent(m)),
        urls: URLS,
        ids: map,
      }).map((d) => d.at)
    expect(compare('agt_New1', 'agt_Mod1')).toEqual([])
    expect(map.toModel('agt_New1')).toBe('agt_Mod1')
    expect(compare('agt_New1', 'agt_Mod2')).toEqual(['body.id'])
    expect(compare('agt_New2', 'agt_Mod1')).toEqual(['body.id'])
  })

  it('gives every exception the contract sentence that makes it one, in one table', () => {
    for (const entry of LEFT_OPEN) {
      expect(entry.because.length, entry.where).toBeGreaterThan(20)
      expect(entry.where).toMatch(/^(#\/components\/schemas\/\S+|header [a-z-]+)$/)
    }
    // Every schema place of the table exists in the contract (a renamed field would silently compare again).
    for (const entry of LEFT_OPEN.filter((e) => e.where.startsWith('#/'))) {
      const found = entry.where
        .slice(2)
        .split('/')
        .reduce<unknown>(
          (node, key) => (node as Record<string, unknown> | undefined)?.[key],
          contract.document,
        )
      expect(found, entry.where).toBeDefined()
    }
  })
})

/**
 * Shows that every fault of held-out fault set 5 is live: for each one, a short scenario (accounts and keys
 * provisioned through the control plane, then v1 requests, the mock clock moved where time matters) is run
 * against a fresh correct engine, again against another fresh correct engine (the scenario must observe the same
 * thing twice: nothing random leaks into it), and against a fresh engine wrapped in the fault. A fault is LIVE
 * when its observation differs from the correct one. Ordinary traffic (the first reads of every endpoint, a
 * create and a read) is also run through each fault, which should leave it unchanged. The engines' clocks are
 * frozen at one instant and move only when a scenario advances them, so that every run sees the same times
 * (`node --import tsx scripts/fault-sets/held-out-5-live.ts`).
 */
import { createClock } from '../../mocks/engine/clock.ts'
import { createMockPlatform } from '../../mocks/platform.ts'
import { faults } from '../../test/fault-sets/held-out-5.ts'
import { type Fault, faultyHandler } from '../../test/reliability/support/faulty-handler.ts'
import { type Answer, agentBody, at, names, T0 } from './live-harness.ts'

interface CallOptions {
  /** The API key to send (default: the session's current key; `''` sends none). */
  key?: string
  headers?: Record<string, string>
  /** The transport refused a body over 1 MiB. */
  tooLarge?: boolean
}

interface Api {
  call(method: string, url: string, body?: unknown, options?: CallOptions): Promise<Answer>
  /** A new account (through the control plane); its id. */
  account(input?: Record<string, unknown>): Promise<string>
  /** A new key of `account` (through the control plane); its value, which becomes the session's key. */
  key(account: string, input?: Record<string, unknown>): Promise<string>
  /** A new key's id and value (the session's key does not change). */
  keyRecord(account: string, input?: Record<string, unknown>): Promise<{ id: string; value: string }>
  revoke(keyId: string): Promise<void>
  use(key: string): void
  /** The seeded demo account's secret key. */
  demoKey(): string
  advance(seconds: number): Promise<void>
  /** A new agent named `name`; its id. */
  agent(name: string, extra?: Record<string, unknown>): Promise<string>
  /** A simulated call of `agent` (through the control plane); its call log's id. */
  startCall(account: string, agent: string, extra?: Record<string, unknown>): Promise<string>
}

async function session(fault: Fault, scenario: (api: Api) => Promise<unknown>): Promise<string> {
  const platform = await createMockPlatform({ clock: createClock({ realNow: () => T0 }) })
  const handler = faultyHandler(platform, fault)
  let current = ''
  const api: Api = {
    async call(method, url, body, options = {}) {
      const key = options.key ?? current
      const headers: Record<string, string> = { ...(key ? { authorization: `Bearer ${key}` } : {}) }
      if (body !== undefined) headers['content-type'] = 'application/json'
      return (await handler.handle({
        method,
        url,
        headers: { ...headers, ...options.headers },
        body: body === undefined ? null : JSON.stringify(body),
        baseUrl: 'http://live.test/v1',
        clientIp: '127.0.0.1',
        ...(options.tooLarge ? { bodyTooLarge: true } : {}),
      })) as Answer
    },
    async account(input = { plan: 'pro' }) {
      return (await api.call('POST', '/_mock/accounts', input, { key: '' })).body.id
    },
    async keyRecord(account, input = {}) {
      const made = await api.call(
        'POST',
        `/_mock/accounts/${account}/keys`,
        { type: 'secret', name: 'live', ...input },
        { key: '' },
      )
      if (made.status !== 201) throw new Error(`key: ${made.status} ${JSON.stringify(made.body)}`)
      return { id: made.body.id, value: made.body.value }
    },
    async key(account, input = {}) {
      current = (await api.keyRecord(account, input)).value
      return current
    },
    async revoke(keyId) {
      const revoked = await api.call('POST', `/_mock/keys/${keyId}/revoke`, undefined, { key: '' })
      if (revoked.status !== 200) throw new Error(`revoke: ${revoked.status}`)
    },
    use(key) {
      current = key
    },
    demoKey() {
      const key = platform.demo.secretKey
      if (!key) throw new Error('the demo account has no secret key value')
      return key
    },
    async advance(seconds) {
      await api.call('POST', '/_mock/clock/advance', { seconds }, { key: '' })
    },
    async agent(name, extra) {
      const made = await api.call('POST', '/v1/agents', agentBody(name, extra))
      if (made.status !== 201) throw new Error(`agent: ${made.status} ${JSON.stringify(made.body)}`)
      return made.body.id
    },
    async startCall(account, agent, extra = {}) {
      const made = await api.call(
        'POST',
        `/_mock/accounts/${account}/calls`,
        { agent_id: agent, ...extra },
        { key: '' },
      )
      if (made.status !== 201) throw new Error(`call: ${made.status} ${JSON.stringify(made.body)}`)
      return made.body.id
    },
  }
  try {
    return JSON.stringify(await scenario(api))
  } finally {
    await (platform as { close?: () => Promise<void> }).close?.()
  }
}

const errorCode = (answer: Answer) => answer.body?.error?.code
const idsDescending = (answer: Answer) => {
  const ids: string[] = (answer.body?.data ?? []).map((item: { id: string }) => item.id)
  return ids.every((id, i) => i === 0 || (ids[i - 1] as string) > id)
}

// -------------------------------------------------------------------------------------------- scenarios

const scenarios: Record<string, (api: Api) => Promise<unknown>> = {
  async 'ending-before-takes-newest-window'(api) {
    await api.key(await api.account())
    const ids: string[] = []
    for (const name of ['a0', 'a1', 'a2', 'a3', 'a4']) {
      ids.push(await api.agent(name))
      await api.advance(1)
    }
    const page = await api.call('GET', `/v1/agents?ending_before=${ids[0]}&limit=2`)
    return { status: page.status, names: names(page), has_more: page.body.has_more }
  },

  async 'cursor-compares-created-at-only'(api) {
    await api.key(await api.account())
    await api.agent('older')
    await api.advance(1)
    for (const name of ['x', 'y', 'z']) await api.agent(name)
    const all = await api.call('GET', '/v1/agents')
    const [first, , third] = all.body.data as { id: string }[]
    const after = await api.call('GET', `/v1/agents?starting_after=${first?.id}`)
    const before = await api.call('GET', `/v1/agents?ending_before=${third?.id}`)
    return {
      after: after.body.data.length,
      afterHasOlder: names(after).includes('older'),
      before: before.body.data.length,
    }
  },

  async 'call-log-filters-dropped-on-later-pages'(api) {
    const account = await api.account()
    await api.key(account)
    const agent = await api.agent('a')
    for (const direction of ['inbound', 'outbound', 'inbound']) {
      await api.startCall(account, agent, { direction })
      await api.advance(1)
    }
    const first = await api.call('GET', '/v1/call-logs?direction=inbound&limit=1')
    const next = await api.call(
      'GET',
      `/v1/call-logs?direction=inbound&limit=5&starting_after=${first.body.data[0].id}`,
    )
    return next.body.data.map((log: { direction: string }) => log.direction)
  },

  async 'same-second-ties-by-id-ascending'(api) {
    await api.key(await api.account())
    for (const name of ['p', 'q', 'r', 's']) await api.agent(name)
    const list = await api.call('GET', '/v1/agents')
    return { count: list.body.data.length, idsDescending: idsDescending(list) }
  },

  async 'analytics-group-ties-by-value-descending'(api) {
    const account = await api.account()
    await api.key(account)
    const agent = await api.agent('a')
    await api.startCall(account, agent, { direction: 'inbound' })
    await api.startCall(account, agent, { direction: 'outbound' })
    await api.advance(1)
    const stats = await api.call('GET', '/v1/analytics/calls?group_by=direction&granularity=total')
    return stats.body.groups.map((group: { value: string }) => group.value)
  },

  async 'call-log-readable-across-accounts'(api) {
    const mine = await api.account()
    await api.key(mine)
    const call = await api.startCall(mine, await api.agent('a'))
    await api.key(await api.account())
    const other = await api.call('GET', `/v1/call-logs/${call}`)
    return { status: other.status, code: errorCode(other) }
  },

  async 'member-email-unique-across-accounts'(api) {
    await api.key(await api.account())
    const first = await api.call('POST', '/v1/team-members', { email: 'kim@live.test' })
    await api.key(await api.account())
    const second = await api.call('POST', '/v1/team-members', { email: 'kim@live.test' })
    return { first: first.status, second: second.status, code: errorCode(second) }
  },

  async 'idempotency-key-shared-across-accounts'(api) {
    const headers = { 'idempotency-key': 'create-front-desk-0001' }
    await api.key(await api.account())
    await api.call('POST', '/v1/agents', agentBody('front desk'), { headers })
    await api.key(await api.account())
    const other = await api.call('POST', '/v1/agents', agentBody('front desk'), { headers })
    const list = await api.call('GET', '/v1/agents')
    return {
      status: other.status,
      replayed: other.headers['idempotent-replayed'] ?? null,
      agents: list.body.data.length,
    }
  },

  async 'publishable-key-sees-sensitive-fields-by-id'(api) {
    const account = await api.account()
    await api.key(account)
    const id = await api.agent('a', { system_prompt: 'internal instructions', metadata: { crm: '7' } })
    const publishable = await api.key(account, { type: 'publishable' })
    const one = await api.call('GET', `/v1/agents/${id}`, undefined, { key: publishable })
    return { status: one.status, fields: Object.keys(one.body).sort() }
  },

  async 'origin-restriction-skipped-without-origin'(api) {
    await api.key(await api.account(), { restrictions: { allowed_origins: ['https://app.live.test'] } })
    const without = await api.call('GET', '/v1/user')
    const listed = await api.call('GET', '/v1/user', undefined, {
      headers: { origin: 'https://app.live.test' },
    })
    return { without: without.status, code: errorCode(without), listed: listed.status }
  },

  async 'analytics-guarded-by-call-logs-scope'(api) {
    const account = await api.account()
    await api.key(account)
    const analyst = await api.key(account, { permissions: ['analytics:read'] })
    const reader = await api.key(account, { permissions: ['call_logs:read'] })
    const a = await api.call('GET', '/v1/analytics/calls', undefined, { key: analyst })
    const r = await api.call('GET', '/v1/analytics/calls', undefined, { key: reader })
    return { analyst: a.status, reader: r.status }
  },

  async 'calendar-buckets-ignore-timezone'(api) {
    const account = await api.account()
    await api.key(account)
    await api.startCall(account, await api.agent('a'))
    await api.advance(10)
    const stats = await api.call(
      'GET',
      `/v1/analytics/calls?granularity=day&timezone=Asia/Tokyo&start=${at(-2 * 86400)}&end=${at(10)}`,
    )
    return {
      status: stats.status,
      timezone: stats.body.timezone,
      starts: stats.body.series.map((bucket: { start: string }) => bucket.start),
    }
  },

  async 'analytics-end-inclusive'(api) {
    const account = await api.account()
    await api.key(account)
    await api.startCall(account, await api.agent('a'))
    await api.advance(10)
    const total = await api.call(
      'GET',
      `/v1/analytics/calls?granularity=total&start=${at(-3600)}&end=${at(0)}`,
    )
    const hourly = await api.call(
      'GET',
      `/v1/analytics/calls?granularity=hour&start=${at(-7200)}&end=${at(0)}`,
    )
    return {
      total: total.body.totals.call_count,
      end: hourly.body.end,
      buckets: hourly.body.series.map((b: { end: string; metrics: { call_count: number } }) => [
        b.end,
        b.metrics.call_count,
      ]),
    }
  },

  async 'in-progress-call-shows-running-duration'(api) {
    const account = await api.account()
    await api.key(account)
    const call = await api.startCall(account, await api.agent('a'))
    await api.advance(20)
    const one = await api.call('GET', `/v1/call-logs/${call}`)
    const list = await api.call('GET', '/v1/call-logs')
    return {
      status: one.body.status,
      one: one.body.duration_seconds,
      listed: list.body.data[0].duration_seconds,
    }
  },

  async 'revocation-cached-for-a-minute'(api) {
    const account = await api.account()
    await api.key(account)
    const doomed = await api.keyRecord(account)
    const before = await api.call('GET', '/v1/user', undefined, { key: doomed.value })
    await api.revoke(doomed.id)
    await api.advance(10)
    const soon = await api.call('GET', '/v1/agents', undefined, { key: doomed.value })
    await api.advance(60)
    const later = await api.call('GET', '/v1/agents', undefined, { key: doomed.value })
    return [before.status, soon.status, later.status]
  },

  async 'replay-answers-200'(api) {
    await api.key(await api.account())
    const headers = { 'idempotency-key': 'agent-replay-0001' }
    const first = await api.call('POST', '/v1/agents', agentBody('a'), { headers })
    const retry = await api.call('POST', '/v1/agents', agentBody('a'), { headers })
    return [first.status, retry.status, retry.headers['idempotent-replayed'] ?? null]
  },

  async 'failed-requests-stored-for-idempotency'(api) {
    await api.key(await api.account())
    const headers = { 'idempotency-key': 'agent-fix-0001' }
    const refused = await api.call('POST', '/v1/agents', agentBody(''), { headers })
    const again = await api.call('POST', '/v1/agents', agentBody(''), { headers })
    const fixed = await api.call('POST', '/v1/agents', agentBody('a'), { headers })
    return {
      refused: refused.status,
      again: [again.status, again.headers['idempotent-replayed'] ?? null],
      fixed: [fixed.status, errorCode(fixed) ?? null],
      agents: (await api.call('GET', '/v1/agents')).body.data.length,
    }
  },

  async 'idempotency-key-scoped-per-path'(api) {
    await api.key(await api.account())
    const headers = { 'idempotency-key': 'onboarding-0001' }
    const agent = await api.call('POST', '/v1/agents', agentBody('a'), { headers })
    const member = await api.call('POST', '/v1/team-members', { email: 'lee@live.test' }, { headers })
    return { agent: agent.status, member: member.status, code: errorCode(member) ?? null }
  },

  async 'nested-unknown-fields-ignored'(api) {
    await api.key(await api.account())
    const made = await api.call(
      'POST',
      '/v1/agents',
      agentBody('a', { voice: { provider: 'openai', voice_id: 'alloy', pitch: 1.2 } }),
    )
    return {
      status: made.status,
      params: made.body.error?.errors?.map((e: { param: string; code: string }) => `${e.param}:${e.code}`),
    }
  },

  async 'limit-out-of-range-clamped'(api) {
    await api.key(await api.account())
    return {
      zero: (await api.call('GET', '/v1/agents?limit=0')).status,
      over: (await api.call('GET', '/v1/team-members?limit=101')).status,
      far: (await api.call('GET', '/v1/call-logs?limit=1000')).status,
    }
  },

  async 'equal-started-bounds-accepted'(api) {
    await api.key(await api.account())
    const list = await api.call(
      'GET',
      `/v1/call-logs?started_after=${at(-60)}&started_before=${encodeURIComponent('2026-03-10T12:59:00+01:00')}`,
    )
    return { status: list.status, code: errorCode(list) ?? null }
  },

  async 'resource-lookup-before-permission'(api) {
    const account = await api.account()
    await api.key(account)
    const existing = await api.agent('a')
    const reader = await api.key(account, { permissions: ['read'] })
    const missing = await api.call('DELETE', '/v1/agents/agt_0000000000000000', undefined, { key: reader })
    const present = await api.call('DELETE', `/v1/agents/${existing}`, undefined, { key: reader })
    return { missing: missing.status, present: present.status }
  },

  async 'oversized-delete-carried-out'(api) {
    await api.key(await api.account())
    const id = await api.agent('a')
    const removal = await api.call('DELETE', `/v1/agents/${id}`, undefined, { tooLarge: true })
    const after = await api.call('GET', `/v1/agents/${id}`)
    return { removal: removal.status, after: after.status }
  },

  async 'unknown-cursor-answers-404'(api) {
    await api.key(await api.account())
    const page = await api.call('GET', '/v1/team-members?starting_after=mem_0000000000000000')
    return { status: page.status, code: errorCode(page) }
  },

  async 'retry-after-from-shortest-window'(api) {
    await api.key(await api.account({ plan: 'free', limits: { hourly: 3, burst: 3 } }))
    let last: Answer | undefined
    for (let i = 0; i < 4; i++) last = await api.call('GET', '/v1/user')
    return {
      status: last?.status,
      retryAfter: last?.headers['retry-after'],
      policy: last?.body.error?.policy,
    }
  },

  async 'www-authenticate-only-without-credentials'(api) {
    const account = await api.account()
    await api.key(account)
    const doomed = await api.keyRecord(account)
    await api.revoke(doomed.id)
    const revoked = await api.call('GET', '/v1/user', undefined, { key: doomed.value })
    const none = await api.call('GET', '/v1/user', undefined, { key: '' })
    return {
      revoked: [revoked.status, revoked.headers['www-authenticate'] ?? null],
      none: [none.status, none.headers['www-authenticate'] ?? null],
    }
  },

  async 'analytics-cached-after-writes'(api) {
    const account = await api.account()
    await api.key(account)
    const agent = await api.agent('a')
    const before = await api.call('GET', '/v1/analytics/calls?granularity=total')
    await api.startCall(account, agent)
    await api.advance(5)
    const after = await api.call('GET', '/v1/analytics/calls?granularity=total')
    return [before.body.totals.call_count, after.body.totals.call_count]
  },

  async 'model-patch-reapplies-create-defaults'(api) {
    await api.key(await api.account())
    const id = await api.agent('a', {
      llm: { provider: 'openai', model: 'gpt-4o-mini', temperature: 0.2, max_tokens: 300 },
      voice: { provider: 'openai', voice_id: 'alloy', speed: 1.3 },
    })
    const patched = await api.call('PATCH', `/v1/agents/${id}`, {
      llm: { model: 'gpt-4o' },
      voice: { voice_id: 'nova' },
    })
    return { llm: patched.body.llm, voice: patched.body.voice }
  },

  async 'disconnect-disables-integration'(api) {
    await api.key(await api.account())
    await api.call('PATCH', '/v1/integrations/slack', {
      enabled: true,
      credentials: { bot_token: 'xoxb-1234567890' },
    })
    const off = await api.call('PATCH', '/v1/integrations/slack', { credentials: null })
    return { status: off.body.status, enabled: off.body.enabled }
  },

  async 'noop-patch-keeps-updated-at'(api) {
    await api.key(await api.account())
    const id = await api.agent('a')
    await api.advance(10)
    const patched = await api.call('PATCH', `/v1/agents/${id}`, { name: 'a' })
    const read = await api.call('GET', `/v1/agents/${id}`)
    const moved = (agent: { created_at: string; updated_at: string }) =>
      (Date.parse(agent.updated_at) - Date.parse(agent.created_at)) / 1000
    return { patched: moved(patched.body), read: moved(read.body) }
  },
}

/**
 * Ordinary traffic, that no fault should change: the first GET of every endpoint (with the seeded demo account
 * and with a new one), a create and a read of what was created. Its answers are compared whole, random IDs aside.
 */
async function quiet(api: Api): Promise<unknown> {
  const seen: unknown[] = []
  const look = (answer: Answer) =>
    seen.push({
      status: answer.status,
      headers: Object.fromEntries(Object.entries(answer.headers).filter(([name]) => name !== 'request-id')),
      body: answer.body,
    })
  const reads = [
    '/v1/user',
    '/v1/agents',
    '/v1/call-logs',
    '/v1/analytics/calls',
    '/v1/integrations',
    '/v1/integrations/slack',
    '/v1/team-members',
  ]
  api.use(api.demoKey())
  for (const path of reads) look(await api.call('GET', path))
  await api.key(await api.account())
  for (const path of reads) look(await api.call('GET', path))
  const agent = await api.call('POST', '/v1/agents', agentBody('a'))
  look(agent)
  look(await api.call('GET', `/v1/agents/${agent.body.id}`))
  const member = await api.call('POST', '/v1/team-members', { email: 'lee@live.test' })
  look(member)
  look(await api.call('GET', `/v1/team-members/${member.body.id}`))
  return JSON.parse(JSON.stringify(seen).replace(/\b(agt|mem|call|req|key|usr)_[A-Za-z0-9]+/g, '$1_*'))
}

// ------------------------------------------------------------------------------------------------- run

let live = 0
const problems: string[] = []
const quietCorrect = await session({}, quiet)
if (quietCorrect !== (await session({}, quiet))) problems.push('the quiet traffic is not stable')
for (const fault of faults) {
  const scenario = scenarios[fault.name]
  if (!scenario) {
    problems.push(`${fault.name}: no scenario`)
    console.log(`NO SCENARIO ${fault.name}`)
    continue
  }
  const correct = await session({}, scenario)
  const again = await session({}, scenario)
  const faulty = await session(fault.make(), scenario)
  const stable = correct === again
  const dormant = (await session(fault.make(), quiet)) === quietCorrect
  if (!dormant) problems.push(`${fault.name}: changes ordinary traffic`)
  const isLive = stable && faulty !== correct
  if (isLive) live++
  if (!stable) problems.push(`${fault.name}: the correct engine observed two different things`)
  else if (!isLive) problems.push(`${fault.name}: not live`)
  console.log(
    `${isLive ? 'LIVE    ' : 'NOT LIVE'} ${fault.kind.padEnd(11)} ${fault.name}${dormant ? '' : ' (changes ordinary traffic)'}`,
  )
  console.log(`         correct ${correct}`)
  if (!stable) console.log(`         again   ${again}`)
  console.log(`         faulty  ${faulty}`)
}
const kinds = new Map<string, number>()
for (const fault of faults) kinds.set(fault.kind, (kinds.get(fault.kind) ?? 0) + 1)
console.log(`\nkinds: ${[...kinds].map(([kind, n]) => `${kind} ${n}`).join(', ')}`)
console.log(`${live} of ${faults.length} faults live${problems.length ? `; ${problems.join('; ')}` : ''}`)
if (
  live !== faults.length ||
  faults.length !== 30 ||
  Object.keys(scenarios).length !== faults.length ||
  problems.length > 0
)
  process.exitCode = 1

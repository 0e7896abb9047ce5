/**
 * Shows that every fault of held-out fault set 4 is live: for each one, a short scenario (an account and keys
 * provisioned through the control plane, then v1 requests, the mock clock moved where time matters) is run
 * against a fresh correct engine, again against another fresh correct engine (the scenario must observe the same
 * thing twice: nothing random leaks into it), and against a fresh engine wrapped in the fault. A fault is LIVE
 * when its observation differs from the correct one. The engines' clocks are frozen at one instant and move only
 * when a scenario advances them, so that every run sees the same times
 * (`node --import tsx scripts/fault-sets/held-out-4-live.ts`).
 */
import { createClock } from '../../mocks/engine/clock.ts'
import { createMockPlatform } from '../../mocks/platform.ts'
import { faults } from '../../test/fault-sets/held-out-4.ts'
import { type Fault, faultyHandler } from '../../test/reliability/support/faulty-handler.ts'
import { type Answer, agentBody, names, T0 } from './live-harness.ts'

interface CallOptions {
  /** The API key to send (default: the session's current key; `''` sends none). */
  key?: string
  headers?: Record<string, string>
  /** The body as sent, instead of JSON.stringify(body). */
  raw?: string
}

interface Api {
  call(method: string, url: string, body?: unknown, options?: CallOptions): Promise<Answer>
  /** A new account (through the control plane); its id. */
  account(input?: Record<string, unknown>): Promise<string>
  /** A new key of `account` (through the control plane); its value, which becomes the session's key. */
  key(account: string, input?: Record<string, unknown>): Promise<string>
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
      if (body !== undefined || options.raw !== undefined) headers['content-type'] = 'application/json'
      return (await handler.handle({
        method,
        url,
        headers: { ...headers, ...options.headers },
        body: options.raw ?? (body === undefined ? null : JSON.stringify(body)),
        baseUrl: 'http://live.test/v1',
        clientIp: '127.0.0.1',
      })) as Answer
    },
    async account(input = { plan: 'pro' }) {
      return (await api.call('POST', '/_mock/accounts', input, { key: '' })).body.id
    },
    async key(account, input = {}) {
      const made = await api.call(
        'POST',
        `/_mock/accounts/${account}/keys`,
        { type: 'secret', name: 'live', ...input },
        { key: '' },
      )
      if (made.status !== 201) throw new Error(`key: ${made.status} ${JSON.stringify(made.body)}`)
      current = made.body.value
      return current
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

/** Names for the random IDs a scenario meets, so that observations compare across runs. */
function labeller() {
  const names = new Map<string, string>()
  return {
    name(id: string, name: string) {
      names.set(id, name)
    },
    of: (id: unknown) => names.get(String(id)) ?? '?',
  }
}

const errorCode = (answer: Answer) => answer.body?.error?.code

// -------------------------------------------------------------------------------------------- scenarios

const scenarios: Record<string, (api: Api) => Promise<unknown>> = {
  async 'ending-before-has-more-always-false'(api) {
    await api.key(await api.account())
    const ids: string[] = []
    for (const name of ['a0', 'a1', 'a2', 'a3']) {
      ids.push(await api.agent(name))
      await api.advance(1)
    }
    const page = await api.call('GET', `/v1/agents?ending_before=${ids[0]}&limit=2`)
    return { status: page.status, names: names(page), has_more: page.body.has_more }
  },

  async 'call-log-cursor-outside-agent-filter-refused'(api) {
    const account = await api.account()
    await api.key(account)
    const a = await api.agent('a')
    const b = await api.agent('b')
    await api.startCall(account, a)
    await api.advance(1)
    const ofB = await api.startCall(account, b)
    await api.advance(1)
    await api.startCall(account, a)
    await api.advance(1)
    const page = await api.call('GET', `/v1/call-logs?agent_id=${a}&starting_after=${ofB}`)
    return { status: page.status, code: errorCode(page), count: page.body.data?.length }
  },

  async 'updated-agent-moves-to-top-of-list'(api) {
    await api.key(await api.account())
    const a = await api.agent('older')
    await api.advance(5)
    await api.agent('newer')
    await api.advance(5)
    await api.call('PATCH', `/v1/agents/${a}`, { description: 'changed' })
    return names(await api.call('GET', '/v1/agents'))
  },

  async 'queued-calls-listed-last'(api) {
    const account = await api.account()
    await api.key(account)
    const agent = await api.agent('a')
    const label = labeller()
    label.name(await api.startCall(account, agent), 'first')
    await api.advance(100)
    label.name(await api.startCall(account, agent), 'second (queued)')
    const list = await api.call('GET', '/v1/call-logs')
    return list.body.data.map((log: { id: string }) => label.of(log.id))
  },

  async 'cursor-of-another-account-accepted'(api) {
    const mine = await api.key(await api.account())
    await api.agent('mine-1')
    await api.advance(1)
    await api.agent('mine-2')
    await api.advance(1)
    await api.key(await api.account())
    const theirs = await api.agent('theirs')
    const page = await api.call('GET', `/v1/agents?starting_after=${theirs}`, undefined, { key: mine })
    return { status: page.status, code: errorCode(page), names: names(page) }
  },

  async 'integration-settings-shared-across-accounts'(api) {
    await api.key(await api.account())
    await api.call('PATCH', '/v1/integrations/slack', { enabled: true, config: { channel: '#ops' } })
    await api.key(await api.account())
    const other = await api.call('GET', '/v1/integrations/slack')
    return { enabled: other.body.enabled, config: other.body.config }
  },

  async 'expired-key-five-minute-leeway'(api) {
    const account = await api.account()
    await api.key(account)
    const now = (await api.call('GET', '/_mock/clock', undefined, { key: '' })).body.now as string
    const expiring = await api.key(account, {
      restrictions: { expires_at: new Date(Date.parse(now) + 60_000).toISOString() },
    })
    const before = await api.call('GET', '/v1/user', undefined, { key: expiring })
    await api.advance(90)
    const after = await api.call('GET', '/v1/user', undefined, { key: expiring })
    return { before: before.status, after: after.status }
  },

  async 'member-removal-without-team-scope'(api) {
    const account = await api.account()
    const full = await api.key(account)
    const deleter = await api.key(account, { permissions: ['read', 'resources:delete'] })
    const invited = await api.call('POST', '/v1/team-members', { email: 'kim@live.test' }, { key: full })
    const removal = await api.call('DELETE', `/v1/team-members/${invited.body.id}`, undefined, {
      key: deleter,
    })
    const left = await api.call('GET', '/v1/team-members', undefined, { key: full })
    return { removal: removal.status, members: left.body.data.length }
  },

  async 'write-scope-does-not-imply-read'(api) {
    await api.key(await api.account(), { permissions: ['agents:write', 'integrations:write'] })
    const id = await api.agent('a')
    return {
      list: (await api.call('GET', '/v1/agents')).status,
      one: (await api.call('GET', `/v1/agents/${id}`)).status,
      integration: (await api.call('GET', '/v1/integrations/slack')).status,
    }
  },

  async 'allowed-ips-compared-as-text'(api) {
    await api.key(await api.account(), { restrictions: { allowed_ips: ['127.0.0.0/8'] } })
    const user = await api.call('GET', '/v1/user')
    return { status: user.status, code: errorCode(user) }
  },

  async 'idempotency-keys-kept-one-hour'(api) {
    await api.key(await api.account())
    const headers = { 'idempotency-key': 'create-agent-7f3a' }
    const first = await api.call('POST', '/v1/agents', agentBody('a'), { headers })
    await api.advance(2 * 3600)
    const retry = await api.call('POST', '/v1/agents', agentBody('a'), { headers })
    const list = await api.call('GET', '/v1/agents')
    return {
      retry: retry.status,
      replayed: retry.headers['idempotent-replayed'] ?? null,
      sameAgent: retry.body.id === first.body.id,
      agents: list.body.data.length,
    }
  },

  async 'ratelimit-reset-from-newest-request'(api) {
    await api.key(await api.account({ plan: 'free' }))
    await api.call('GET', '/v1/user')
    await api.advance(30)
    const second = await api.call('GET', '/v1/user')
    return {
      ratelimit: second.headers.ratelimit,
      reset: Number(second.headers['x-ratelimit-reset']) - (T0 / 1000 + 30),
    }
  },

  async 'success-rate-over-completed-calls'(api) {
    const account = await api.account()
    await api.key(account)
    await api.startCall(account, await api.agent('a'))
    // Ended (4 s ringing, 60 s talking), not yet analysed (120 s after the end).
    await api.advance(70)
    const totals = (await api.call('GET', '/v1/analytics/calls?granularity=total')).body.totals
    return {
      completed: totals.completed_count,
      analyzed: totals.analyzed_count,
      success_rate: totals.success_rate,
    }
  },

  async 'duration-filter-counts-unended-calls-as-zero'(api) {
    const account = await api.account()
    await api.key(account)
    const agent = await api.agent('a')
    const label = labeller()
    label.name(await api.startCall(account, agent), 'ended')
    await api.advance(200)
    label.name(await api.startCall(account, agent), 'in progress')
    await api.advance(10)
    const list = await api.call('GET', '/v1/call-logs?max_duration_seconds=3600')
    return list.body.data.map((log: { id: string }) => label.of(log.id))
  },

  async 'idempotent-bodies-compared-as-text'(api) {
    await api.key(await api.account())
    const headers = { 'idempotency-key': 'agent-2c9d' }
    const body = agentBody('a', { description: 'front desk' })
    await api.call('POST', '/v1/agents', undefined, { headers, raw: JSON.stringify(body) })
    const retry = await api.call('POST', '/v1/agents', undefined, {
      headers,
      raw: JSON.stringify(body, null, 2),
    })
    return {
      status: retry.status,
      replayed: retry.headers['idempotent-replayed'] ?? null,
      code: errorCode(retry),
    }
  },

  async 'replay-served-before-permission-check'(api) {
    const account = await api.account()
    const writer = await api.key(account)
    const reader = await api.key(account, { permissions: ['read'] })
    const headers = { 'idempotency-key': 'agent-91b0' }
    await api.call('POST', '/v1/agents', agentBody('a'), { key: writer, headers })
    const retry = await api.call('POST', '/v1/agents', agentBody('a'), { key: reader, headers })
    return { status: retry.status, code: errorCode(retry) }
  },

  async 'replay-without-location'(api) {
    await api.key(await api.account())
    const headers = { 'idempotency-key': 'agent-5e1f' }
    const first = await api.call('POST', '/v1/agents', agentBody('a'), { headers })
    const retry = await api.call('POST', '/v1/agents', agentBody('a'), { headers })
    return [first, retry].map((answer) => ({
      status: answer.status,
      location: answer.headers.location === undefined ? 'none' : 'present',
    }))
  },

  async 'replay-of-deleted-object-runs-again'(api) {
    await api.key(await api.account())
    const headers = { 'idempotency-key': 'agent-d41e' }
    const first = await api.call('POST', '/v1/agents', agentBody('a'), { headers })
    await api.call('DELETE', `/v1/agents/${first.body.id}`)
    const retry = await api.call('POST', '/v1/agents', agentBody('a'), { headers })
    return {
      status: retry.status,
      replayed: retry.headers['idempotent-replayed'] ?? null,
      sameAgent: retry.body.id === first.body.id,
      agents: (await api.call('GET', '/v1/agents')).body.data.length,
    }
  },

  async 'duplicate-webhook-events-deduplicated'(api) {
    await api.key(await api.account())
    const made = await api.call(
      'POST',
      '/v1/agents',
      agentBody('a', {
        webhook_url: 'https://hooks.live.test/a',
        webhook_events: ['call.ended', 'call.ended'],
      }),
    )
    return { status: made.status, errors: made.body.error?.errors?.map((e: { code: string }) => e.code) }
  },

  async 'query-integers-parsed-leniently'(api) {
    await api.key(await api.account())
    return {
      leadingZero: (await api.call('GET', '/v1/agents?limit=05')).status,
      plus: (await api.call('GET', '/v1/call-logs?limit=%2B5')).status,
      exponent: (await api.call('GET', '/v1/team-members?limit=1e1')).status,
    }
  },

  async 'json-content-type-matched-exactly'(api) {
    await api.key(await api.account())
    const made = await api.call('POST', '/v1/agents', agentBody('a'), {
      headers: { 'content-type': 'application/json; charset=utf-8' },
    })
    return { status: made.status, code: errorCode(made) }
  },

  async 'validation-errors-with-their-own-request-id'(api) {
    await api.key(await api.account())
    const refused = await api.call('POST', '/v1/agents', { name: '' })
    return {
      status: refused.status,
      matches: refused.body.error?.request_id === refused.headers['request-id'],
    }
  },

  async 'owner-role-conflict-before-validation'(api) {
    await api.key(await api.account())
    const members = await api.call('GET', '/v1/team-members')
    const owner = members.body.data.find((member: { role: string }) => member.role === 'owner')
    const patched = await api.call('PATCH', `/v1/team-members/${owner.id}`, { role: 'owner' })
    return { status: patched.status, code: errorCode(patched) }
  },

  async 'method-not-allowed-before-authentication'(api) {
    await api.key(await api.account())
    const anonymous = await api.call('DELETE', '/v1/user', undefined, { key: '' })
    const known = await api.call('DELETE', '/v1/user')
    return { anonymous: anonymous.status, withKey: known.status }
  },

  async 'x-ratelimit-tie-goes-to-hourly'(api) {
    await api.key(await api.account({ plan: 'free', limits: { hourly: 5, burst: 5 } }))
    const user = await api.call('GET', '/v1/user')
    return {
      limit: user.headers['x-ratelimit-limit'],
      remaining: user.headers['x-ratelimit-remaining'],
      reset: Number(user.headers['x-ratelimit-reset']) - T0 / 1000,
    }
  },

  async 'preflight-only-on-collection-paths'(api) {
    const preflight = await api.call('OPTIONS', '/v1/agents/agt_3Jt9Qm2Wx8Kd5Lr1', undefined, {
      key: '',
      headers: { origin: 'https://app.live.test', 'access-control-request-method': 'PATCH' },
    })
    return { status: preflight.status, methods: preflight.headers['access-control-allow-methods'] ?? null }
  },

  async 'repeated-delete-answers-deleted'(api) {
    await api.key(await api.account())
    const id = await api.agent('a')
    const first = await api.call('DELETE', `/v1/agents/${id}`)
    const again = await api.call('DELETE', `/v1/agents/${id}`)
    return [first.status, again.status]
  },

  async 'agent-deletion-cascades-to-call-logs'(api) {
    const account = await api.account()
    await api.key(account)
    const agent = await api.agent('a')
    const call = await api.startCall(account, agent)
    await api.advance(200)
    await api.call('DELETE', `/v1/agents/${agent}`)
    return {
      listed: (await api.call('GET', '/v1/call-logs')).body.data.length,
      byAgent: (await api.call('GET', `/v1/call-logs?agent_id=${agent}`)).body.data.length,
      one: (await api.call('GET', `/v1/call-logs/${call}`)).status,
    }
  },

  async 'agent-metadata-merged-on-update'(api) {
    await api.key(await api.account())
    const id = await api.agent('a', { metadata: { crm_id: '42', region: 'eu' } })
    const patched = await api.call('PATCH', `/v1/agents/${id}`, { metadata: { crm_id: '43' } })
    const cleared = await api.call('PATCH', `/v1/agents/${id}`, { metadata: {} })
    return { patched: patched.body.metadata, cleared: cleared.body.metadata }
  },

  async 'removed-member-email-stays-taken'(api) {
    await api.key(await api.account())
    const invited = await api.call('POST', '/v1/team-members', { email: 'sam@live.test', role: 'editor' })
    const removed = await api.call('DELETE', `/v1/team-members/${invited.body.id}`)
    const again = await api.call('POST', '/v1/team-members', { email: 'Sam@live.test' })
    return { removed: removed.status, again: again.status, code: errorCode(again) }
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
console.log(`\n${live} of ${faults.length} faults live${problems.length ? `; ${problems.join('; ')}` : ''}`)
if (live !== faults.length || Object.keys(scenarios).length !== faults.length) process.exitCode = 1

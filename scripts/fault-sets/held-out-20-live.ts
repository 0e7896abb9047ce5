/**
 * Shows that every fault of held-out fault set 20 is live: for each one, a short scenario (accounts and keys
 * provisioned through the control plane, simulated calls started there, then v1 and control-plane requests sent as a
 * client sends them) is run against a fresh correct engine, again against another fresh correct engine (the scenario
 * must observe the same thing twice: nothing random leaks into it), and against a fresh engine wrapped in the fault. A
 * fault is LIVE when its observation differs from the correct one. Ordinary traffic (the first reads of every
 * endpoint, a create and a read) is also run through each fault, which should leave it unchanged. The engines' clocks
 * are frozen at one instant and move only when a scenario advances them, so that every run sees the same times
 * (`npx tsx scripts/fault-sets/held-out-20-live.ts`).
 */
import { faults } from '../../test/fault-sets/held-out-20.ts'
import {
  type Answer,
  type Api,
  agentBody,
  agentsApart,
  at,
  control,
  freshKey,
  invite,
  names,
  seconds,
  showLive,
  status,
} from './live-harness.ts'

// -------------------------------------------------------------------------------------------- helpers

const DAY = 86_400

// -------------------------------------------------------------------------------------------- scenarios

const scenarios: Record<string, (api: Api) => Promise<unknown>> = {
  // ------------------------------------------------------------------------------------------------- keys
  async 'rotation-due-in-three-calendar-months'(api) {
    const account = await api.account()
    const made = await control(api, 'POST', `/accounts/${account}/keys`, {
      type: 'secret',
      name: 'rotate me',
    })
    const listed = await control(api, 'GET', `/accounts/${account}/keys`)
    const record = listed.body.data[0]
    return [
      seconds(made.body.created_at, made.body.rotation_due_at) / DAY,
      seconds(record.created_at, record.rotation_due_at) / DAY,
    ]
  },

  async 'last-used-at-written-once'(api) {
    const account = await api.account()
    const key = await api.keyRecord(account, { name: 'daily' })
    await api.call('GET', '/v1/user', undefined, { key: key.value })
    await api.advance(600)
    await api.call('GET', '/v1/agents', undefined, { key: key.value })
    const listed = await control(api, 'GET', `/accounts/${account}/keys`)
    const record = listed.body.data.find((one: { id: string }) => one.id === key.id)
    return seconds(record.created_at, record.last_used_at)
  },

  async 're-revocation-restamps-revoked-at'(api) {
    const account = await api.account()
    const key = await api.keyRecord(account, { name: 'old' })
    await api.advance(10)
    const first = await control(api, 'POST', `/keys/${key.id}/revoke`)
    await api.advance(3600)
    const again = await control(api, 'POST', `/keys/${key.id}/revoke`)
    const listed = await control(api, 'GET', `/accounts/${account}/keys`)
    const record = listed.body.data.find((one: { id: string }) => one.id === key.id)
    return [
      again.status,
      seconds(first.body.revoked_at, again.body.revoked_at),
      seconds(first.body.revoked_at, record.revoked_at),
    ]
  },

  async 'bare-addresses-in-allowlist-never-match'(api) {
    const account = await api.account()
    const bare = await api.keyRecord(account, { restrictions: { allowed_ips: ['127.0.0.1'] } })
    const range = await api.keyRecord(account, { restrictions: { allowed_ips: ['127.0.0.1/32'] } })
    const byBare = await api.call('GET', '/v1/user', undefined, { key: bare.value })
    const byRange = await api.call('GET', '/v1/user', undefined, { key: range.value })
    return [status(byBare), status(byRange)]
  },

  // ------------------------------------------------------------------------------------------ permissions
  async 'publishable-keys-refused-on-user'(api) {
    const account = await api.account()
    await api.key(account, { type: 'publishable', name: 'widget' })
    const user = await api.call('GET', '/v1/user')
    const agents = await api.call('GET', '/v1/agents')
    return [status(user), user.body.id === account, agents.status]
  },

  // ------------------------------------------------------------------------------------------ rate limits
  async 'window-edge-request-still-counted'(api) {
    await freshKey(api, { plan: 'free' })
    for (let i = 0; i < 10; i++) await api.call('GET', '/v1/user')
    await api.advance(60)
    const edge = await api.call('GET', '/v1/user')
    return [status(edge), edge.headers['retry-after'] ?? null, edge.headers.ratelimit]
  },

  async 'empty-window-reset-reported-as-window-length'(api) {
    const account = await api.account({ plan: 'free' })
    const usage = await control(api, 'GET', `/accounts/${account}/rate-limit`)
    return usage.body.windows.map((window: { policy: string; used: number; reset_seconds: number }) => [
      window.policy,
      window.used,
      window.reset_seconds,
    ])
  },

  async 'hourly-429-without-retry-after'(api) {
    await freshKey(api, { plan: 'pro', limits: { hourly: 3, burst: 10 } })
    for (let i = 0; i < 3; i++) await api.call('GET', '/v1/user')
    const refused = await api.call('GET', '/v1/user')
    return [status(refused), refused.body.error?.policy, refused.headers['retry-after'] ?? null]
  },

  // ----------------------------------------------------------------------------------------------- agents
  async 'all-four-webhook-events-refused'(api) {
    await freshKey(api)
    const hooks = { webhook_url: 'https://hooks.live.test/v1' }
    const four = await api.call(
      'POST',
      '/v1/agents',
      agentBody('all', {
        ...hooks,
        webhook_events: ['call.started', 'call.ended', 'call.analyzed', 'transcript.ready'],
      }),
    )
    const three = await api.call(
      'POST',
      '/v1/agents',
      agentBody('three', { ...hooks, webhook_events: ['call.started', 'call.ended', 'call.analyzed'] }),
    )
    return [
      status(four),
      four.body.error?.param ?? null,
      four.body.webhook_events?.length ?? null,
      three.status,
    ]
  },

  async 'call-duration-minimum-unchecked'(api) {
    await freshKey(api)
    const short = await api.call('POST', '/v1/agents', agentBody('short', { max_call_duration_seconds: 10 }))
    const list = await api.call('GET', '/v1/agents')
    return [
      status(short),
      short.body.max_call_duration_seconds ?? null,
      list.body.data.map((agent: { max_call_duration_seconds: number }) => agent.max_call_duration_seconds),
    ]
  },

  async 'voice-provider-change-resets-speed'(api) {
    await freshKey(api)
    const agent = await api.agent('a', { voice: { provider: 'openai', voice_id: 'alloy', speed: 1.25 } })
    const patched = await api.call('PATCH', `/v1/agents/${agent}`, {
      voice: { provider: 'cartesia', voice_id: 'a0e99841-438c-4a64-b679-ae501e7d6091' },
    })
    const read = await api.call('GET', `/v1/agents/${agent}`)
    return [patched.body.voice, read.body.voice.speed]
  },

  // ------------------------------------------------------------------------------------------------ calls
  async 'transcript-empty-until-call-ends'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    const call = await api.startCall(account, agent, { duration_seconds: 120 })
    await api.advance(40)
    const live = await api.call('GET', `/v1/call-logs/${call}`)
    return [live.body.status, live.body.transcript.length > 0]
  },

  async 'recording-url-ignores-agent-setting'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a', { recording_enabled: false })
    const call = await api.startCall(account, agent)
    await api.advance(70)
    const read = await api.call('GET', `/v1/call-logs/${call}`)
    const list = await api.call('GET', '/v1/call-logs')
    return [read.body.status, read.body.recording_url !== null, list.body.data[0]?.recording_url !== null]
  },

  async 'min-duration-bound-exclusive'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    await api.startCall(account, agent, { duration_seconds: 60 })
    await api.advance(70)
    const all = await api.call('GET', '/v1/call-logs')
    const duration = all.body.data[0]?.duration_seconds
    const atLeast = await api.call('GET', `/v1/call-logs?min_duration_seconds=${duration}`)
    return [duration, atLeast.status, atLeast.body.data.length]
  },

  async 'live-call-numbers-lose-plus'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    const started = await control(api, 'POST', `/accounts/${account}/calls`, {
      agent_id: agent,
      direction: 'inbound',
      from_number: '+14155550123',
    })
    const read = await api.call('GET', `/v1/call-logs/${started.body.id}`)
    return [started.body.from_number, read.body.from_number, /^\+/.test(read.body.to_number)]
  },

  // -------------------------------------------------------------------------------------------- analytics
  async 'group-series-only-buckets-with-calls'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    await api.startCall(account, agent)
    await api.advance(70)
    const grouped = await api.call('GET', '/v1/analytics/calls?granularity=day&group_by=agent_id')
    return [
      grouped.body.series.length,
      grouped.body.groups.map((group: { series: unknown[] }) => group.series.length),
    ]
  },

  async 'total-range-limited-to-744-hours'(api) {
    api.use(api.demoKey())
    const long = await api.call(
      'GET',
      `/v1/analytics/calls?granularity=total&start=${at(-60 * DAY)}&end=${at(0)}`,
    )
    const short = await api.call(
      'GET',
      `/v1/analytics/calls?granularity=total&start=${at(-20 * DAY)}&end=${at(0)}`,
    )
    return [status(long), long.body.error?.param ?? null, status(short)]
  },

  // ----------------------------------------------------------------------------------------- integrations
  async 'integration-config-merged-on-update'(api) {
    await freshKey(api)
    await api.call('PATCH', '/v1/integrations/slack', { config: { channel: '#ops', notify_on: 'failures' } })
    const changed = await api.call('PATCH', '/v1/integrations/slack', { config: { channel: '#alerts' } })
    const read = await api.call('GET', '/v1/integrations/slack')
    return [changed.body.config, read.body.config]
  },

  async 'connecting-switches-integration-on'(api) {
    await freshKey(api)
    const before = await api.call('GET', '/v1/integrations/slack')
    const connected = await api.call('PATCH', '/v1/integrations/slack', {
      credentials: { bot_token: 'xoxb-live-0000' },
    })
    return [before.body.enabled, connected.body.status, connected.body.enabled]
  },

  // ------------------------------------------------------------------------------------------------- team
  async 'member-limit-reached-one-early'(api) {
    await freshKey(api, { plan: 'enterprise' })
    let last: Answer | undefined
    for (let i = 0; i < 198; i++) last = await invite(api, `member${i}@live.test`)
    const hundredNinetyNinth = await invite(api, 'member198@live.test')
    const next = await invite(api, 'member199@live.test')
    return [last?.status, status(hundredNinetyNinth), status(next)]
  },

  async 'rejoin-restamps-joined-at'(api) {
    const account = await freshKey(api)
    const member = await invite(api, 'lee@live.test')
    const joined = await control(api, 'POST', `/accounts/${account}/team-members/${member.body.id}/join`)
    await api.advance(600)
    const again = await control(api, 'POST', `/accounts/${account}/team-members/${member.body.id}/join`)
    const read = await api.call('GET', `/v1/team-members/${member.body.id}`)
    return [joined.status, status(again), seconds(joined.body.joined_at, read.body.joined_at)]
  },

  async 'owner-role-change-answered-422'(api) {
    await freshKey(api)
    const team = await api.call('GET', '/v1/team-members')
    const owner = team.body.data.find((one: { role: string }) => one.role === 'owner')
    const changed = await api.call('PATCH', `/v1/team-members/${owner.id}`, { role: 'admin' })
    return [status(changed), changed.body.error?.type]
  },

  // ------------------------------------------------------------------------------------------- pagination
  async 'unknown-cursor-ignored'(api) {
    await freshKey(api)
    await agentsApart(api, ['a', 'b'])
    const page = await api.call('GET', '/v1/agents?starting_after=agt_0000000000000000')
    return [status(page), names(page)]
  },

  async 'agent-filtered-call-logs-ignore-limit'(api) {
    api.use(api.demoKey())
    const all = await api.call('GET', '/v1/call-logs?limit=1')
    const agent = all.body.data[0].agent_id
    const page = await api.call('GET', `/v1/call-logs?agent_id=${agent}&limit=2`)
    return [page.body.data.length, page.body.has_more]
  },

  // ------------------------------------------------------------------------------------------ idempotency
  async 'idempotency-keys-enforced-on-patch'(api) {
    await freshKey(api)
    const agent = await api.agent('a')
    const headers = { 'idempotency-key': 'settings-form' }
    const first = await api.call('PATCH', `/v1/agents/${agent}`, { description: 'one' }, { headers })
    await api.advance(5)
    const second = await api.call('PATCH', `/v1/agents/${agent}`, { description: 'two' }, { headers })
    const read = await api.call('GET', `/v1/agents/${agent}`)
    return [first.status, status(second), read.body.description]
  },

  async 'idempotency-conflict-typed-as-idempotency-error'(api) {
    await freshKey(api)
    const headers = { 'idempotency-key': 'create-once' }
    const first = await api.call('POST', '/v1/agents', agentBody('a'), { headers })
    const other = await api.call('POST', '/v1/agents', agentBody('b'), { headers })
    return [first.status, status(other), other.body.error?.type]
  },

  async 'idempotency-keys-with-spaces-accepted'(api) {
    await freshKey(api)
    const headers = { 'idempotency-key': 'order 42' }
    const first = await api.call('POST', '/v1/agents', agentBody('a'), { headers })
    const again = await api.call('POST', '/v1/agents', agentBody('a'), { headers })
    return [status(first), status(again), again.headers['idempotent-replayed'] ?? null]
  },

  // ---------------------------------------------------------------------------------------- control plane
  async 'webhook-secret-rotation-not-reported'(api) {
    const account = await api.account()
    const first = await control(api, 'POST', `/accounts/${account}/webhook-secret`)
    const rotated = await control(api, 'POST', `/accounts/${account}/webhook-secret`)
    return [first.status, first.body.rotated, rotated.status, rotated.body.rotated]
  },

  async 'journal-listed-oldest-first'(api) {
    await freshKey(api)
    await api.call('GET', '/v1/user')
    await api.call('GET', '/v1/agents')
    const journal = await control(api, 'GET', '/journal?limit=1')
    const all = await control(api, 'GET', '/journal')
    const route = (entry: { method: string; path: string }) => `${entry.method} ${entry.path}`
    return [journal.body.data.map(route), journal.body.has_more, all.body.data.map(route)]
  },

  async 'clock-advance-drops-fractions'(api) {
    const before = await control(api, 'GET', '/clock')
    await control(api, 'POST', '/clock/advance', { seconds: 1.5 })
    await control(api, 'POST', '/clock/advance', { seconds: 1.5 })
    const after = await control(api, 'GET', '/clock')
    return [seconds(before.body.now, after.body.now), after.body.offset_seconds]
  },
}

await showLive(faults, scenarios)

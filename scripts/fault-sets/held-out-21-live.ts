/**
 * Shows that every fault of held-out fault set 21 is live: for each one, a short scenario (accounts and keys
 * provisioned through the control plane, simulated calls started there, then v1 and control-plane requests sent as a
 * client sends them) is run against a fresh correct engine, again against another fresh correct engine (the scenario
 * must observe the same thing twice: nothing random leaks into it), and against a fresh engine wrapped in the fault. A
 * fault is LIVE when its observation differs from the correct one. Ordinary traffic (the first reads of every
 * endpoint, a create and a read) is also run through each fault, which should leave it unchanged. The engines' clocks
 * are frozen at one instant and move only when a scenario advances them, so that every run sees the same times
 * (`npx tsx scripts/fault-sets/held-out-21-live.ts`).
 */
import { faults } from '../../test/fault-sets/held-out-21.ts'
import {
  type Answer,
  type Api,
  agentBody,
  at,
  control,
  freshKey,
  invite,
  seconds,
  showLive,
  status,
} from './live-harness.ts'

// -------------------------------------------------------------------------------------------- helpers

const DAY = 86_400

/** The ID of a list answer's item, as the label the scenario gave it (IDs are random). */
const labels = (answer: Answer, names: Record<string, string>) =>
  (answer.body?.data ?? []).map((item: { id: string }) => names[item.id] ?? 'other')

// -------------------------------------------------------------------------------------------- scenarios

const scenarios: Record<string, (api: Api) => Promise<unknown>> = {
  // ------------------------------------------------------------------------------------------------- keys
  async 'expiry-offset-read-as-utc'(api) {
    const account = await api.account()
    // 14:00 at +01:00 is 13:00Z: an hour after the frozen clock (12:00Z).
    const made = await control(api, 'POST', `/accounts/${account}/keys`, {
      type: 'secret',
      name: 'expiring',
      restrictions: { expires_at: '2026-03-10T14:00:00+01:00' },
    })
    await api.advance(5400)
    const late = await api.call('GET', '/v1/user', undefined, { key: made.body.value })
    return [made.body.restrictions?.expires_at, status(late)]
  },

  async 'redacted-value-shows-first-four'(api) {
    const account = await api.account()
    const made = await control(api, 'POST', `/accounts/${account}/keys`, { type: 'secret', name: 'ci' })
    const listed = await control(api, 'GET', `/accounts/${account}/keys`)
    const expected = `sk-svc-...${String(made.body.value).slice(-4)}`
    return [made.body.redacted_value === expected, listed.body.data[0]?.redacted_value === expected]
  },

  async 'last-used-at-only-on-success'(api) {
    const account = await api.account()
    const key = await api.keyRecord(account, { name: 'old' })
    await api.call('GET', '/v1/user', undefined, { key: key.value })
    await api.advance(600)
    const missing = await api.call('GET', '/v1/agents/agt_missing0000', undefined, { key: key.value })
    const listed = await control(api, 'GET', `/accounts/${account}/keys`)
    const record = listed.body.data.find((one: { id: string }) => one.id === key.id)
    return [missing.status, seconds(record.created_at, record.last_used_at)]
  },

  async 'allowlist-slash-zero-matches-nothing'(api) {
    const account = await api.account()
    const anywhere = await api.keyRecord(account, { restrictions: { allowed_ips: ['0.0.0.0/0'] } })
    const user = await api.call('GET', '/v1/user', undefined, { key: anywhere.value })
    const made = await api.call('POST', '/v1/agents', agentBody('a'), { key: anywhere.value })
    return [status(user), status(made)]
  },

  // ------------------------------------------------------------------------------------------ permissions
  async 'required-permission-names-write-scope'(api) {
    const account = await api.account()
    await api.key(account, { permissions: ['call_logs:read'] })
    const agents = await api.call('GET', '/v1/agents')
    const integrations = await api.call('GET', '/v1/integrations/slack')
    return [
      status(agents),
      agents.body.error?.required_permission,
      integrations.body.error?.required_permission,
    ]
  },

  async 'permissions-stored-in-request-order'(api) {
    const account = await api.account()
    const made = await control(api, 'POST', `/accounts/${account}/keys`, {
      type: 'secret',
      name: 'ops',
      permissions: ['resources:delete', 'agents:write', 'read'],
    })
    const listed = await control(api, 'GET', `/accounts/${account}/keys`)
    return [made.body.permissions, listed.body.data[0]?.permissions]
  },

  // ------------------------------------------------------------------------------------------ rate limits
  async 'retry-after-in-body-as-string'(api) {
    await freshKey(api, { plan: 'free' })
    for (let i = 0; i < 10; i++) await api.call('GET', '/v1/user')
    const refused = await api.call('GET', '/v1/user')
    return [status(refused), refused.headers['retry-after'], refused.body.error?.retry_after]
  },

  async 'limits-update-swaps-windows'(api) {
    const account = await freshKey(api)
    await control(api, 'PATCH', `/accounts/${account}`, { limits: { hourly: 300, burst: 20 } })
    const user = await api.call('GET', '/v1/user')
    const shown = await control(api, 'GET', `/accounts/${account}`)
    return [user.headers['ratelimit-policy'], shown.body.limits]
  },

  // ----------------------------------------------------------------------------------------------- agents
  async 'max-tokens-upper-bound-exclusive'(api) {
    await freshKey(api)
    const most = await api.call(
      'POST',
      '/v1/agents',
      agentBody('most', { llm: { provider: 'openai', model: 'gpt-4o', max_tokens: 32000 } }),
    )
    return [status(most), most.body.llm?.max_tokens ?? most.body.error?.param]
  },

  async 'webhook-url-with-port-refused'(api) {
    await freshKey(api)
    const local = await api.call(
      'POST',
      '/v1/agents',
      agentBody('local', { webhook_url: 'http://localhost:3000/webhooks', webhook_events: ['call.ended'] }),
    )
    return [status(local), local.body.webhook_url ?? local.body.error?.param]
  },

  // ------------------------------------------------------------------------------------------------ calls
  async 'call-duration-rounded-to-nearest-second'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    const call = await api.startCall(account, agent, { duration_seconds: 60.6 })
    await api.advance(70)
    const read = await api.call('GET', `/v1/call-logs/${call}`)
    return [read.body.status, read.body.duration_seconds, seconds(read.body.started_at, read.body.ended_at)]
  },

  async 'direction-filter-dropped-with-status'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    await api.startCall(account, agent, { direction: 'inbound' })
    await api.startCall(account, agent, { direction: 'outbound' })
    await api.advance(70)
    const outbound = await api.call('GET', '/v1/call-logs?status=completed&direction=outbound')
    return outbound.body.data.map(
      (log: { direction: string; status: string }) => `${log.status} ${log.direction}`,
    )
  },

  async 'transcript-offsets-from-connection'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a', { first_speaker: 'agent', first_message: 'Hello, this is Ava.' })
    const call = await api.startCall(account, agent, { ring_seconds: 6 })
    await api.advance(80)
    const read = await api.call('GET', `/v1/call-logs/${call}`)
    return [read.body.status, read.body.transcript.length > 0, read.body.transcript[0]?.start_seconds >= 6]
  },

  async 'call-cap-from-agent-as-created'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    const patched = await api.call('PATCH', `/v1/agents/${agent}`, { max_call_duration_seconds: 30 })
    const call = await api.startCall(account, agent, { duration_seconds: 120 })
    await api.advance(200)
    const log = await api.call('GET', `/v1/call-logs/${call}`)
    return [patched.body.max_call_duration_seconds, log.body.end_reason, log.body.duration_seconds]
  },

  // -------------------------------------------------------------------------------------------- analytics
  async 'reversed-range-swapped'(api) {
    api.use(api.demoKey())
    const reversed = await api.call('GET', `/v1/analytics/calls?start=${at(0)}&end=${at(-3 * DAY)}`)
    return [status(reversed), reversed.body.error?.param ?? reversed.body.start]
  },

  async 'agent-filter-not-echoed'(api) {
    api.use(api.demoKey())
    const agents = await api.call('GET', '/v1/agents?limit=1')
    const id = agents.body.data[0].id
    const one = await api.call('GET', `/v1/analytics/calls?agent_id=${id}`)
    return [one.status, one.body.agent_id === id]
  },

  async 'total-avg-cost-over-every-call'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    await api.startCall(account, agent)
    await api.startCall(account, agent, { outcome: 'no_answer' })
    await api.advance(70)
    const total = await api.call('GET', '/v1/analytics/calls?granularity=total')
    const totals = total.body.totals
    return [
      totals.call_count,
      totals.completed_count,
      Math.round((totals.avg_cost_usd / totals.total_cost_usd) * 100) / 100,
    ]
  },

  // ----------------------------------------------------------------------------------------- integrations
  async 'integration-list-connected-at-never-written'(api) {
    await freshKey(api)
    const connected = await api.call('PATCH', '/v1/integrations/slack', {
      credentials: { bot_token: 'xoxb-live-0000' },
    })
    const one = await api.call('GET', '/v1/integrations/slack')
    const list = await api.call('GET', '/v1/integrations')
    const listed = list.body.data.find((item: { id: string }) => item.id === 'slack')
    return [
      connected.body.connected_at !== null,
      one.body.connected_at !== null,
      listed.status,
      listed.connected_at,
    ]
  },

  async 'config-update-switches-integration-off'(api) {
    await freshKey(api)
    await api.call('PATCH', '/v1/integrations/slack', { enabled: true })
    const changed = await api.call('PATCH', '/v1/integrations/slack', { config: { channel: '#ops' } })
    const read = await api.call('GET', '/v1/integrations/slack')
    return [changed.body.enabled, read.body.enabled, read.body.config]
  },

  // ------------------------------------------------------------------------------------------------- team
  async 'invitation-role-change-refused'(api) {
    await freshKey(api)
    const member = await invite(api, 'lee@live.test')
    const changed = await api.call('PATCH', `/v1/team-members/${member.body.id}`, { role: 'editor' })
    const read = await api.call('GET', `/v1/team-members/${member.body.id}`)
    return [status(changed), read.body.status, read.body.role]
  },

  async 'role-change-clears-member-name'(api) {
    await freshKey(api)
    const member = await invite(api, 'lee@live.test', { name: 'Lee Park' })
    const changed = await api.call('PATCH', `/v1/team-members/${member.body.id}`, { role: 'admin' })
    const read = await api.call('GET', `/v1/team-members/${member.body.id}`)
    const list = await api.call('GET', '/v1/team-members')
    const listed = list.body.data.find((one: { id: string }) => one.id === member.body.id)
    return [changed.body.name, read.body.name, listed.name]
  },

  // ------------------------------------------------------------------------------------------- pagination
  async 'both-cursors-starting-after-wins'(api) {
    api.use(api.demoKey())
    const page = await api.call('GET', '/v1/agents?limit=3')
    const [first, , third] = page.body.data.map((agent: { id: string }) => agent.id)
    const both = await api.call('GET', `/v1/agents?starting_after=${first}&ending_before=${third}`)
    return [status(both), both.body.data?.length ?? null]
  },

  async 'agents-default-page-of-ten'(api) {
    await freshKey(api)
    const names: Record<string, string> = {}
    for (let i = 0; i < 12; i++) names[await api.agent(`agent ${i}`)] = `agent ${i}`
    const page = await api.call('GET', '/v1/agents')
    return [labels(page, names).length, page.body.has_more]
  },

  // ------------------------------------------------------------------------------------------ idempotency
  async 'empty-idempotency-key-ignored'(api) {
    await freshKey(api)
    const made = await api.call('POST', '/v1/agents', agentBody('a'), { headers: { 'idempotency-key': '' } })
    const list = await api.call('GET', '/v1/agents')
    return [status(made), made.body.error?.param ?? null, list.body.data.length]
  },

  async 'invite-replays-unmarked'(api) {
    await freshKey(api)
    const headers = { 'idempotency-key': 'invite-lee-once' }
    const body = { email: 'lee@live.test', role: 'editor' }
    const first = await api.call('POST', '/v1/team-members', body, { headers })
    const again = await api.call('POST', '/v1/team-members', body, { headers })
    return [
      first.status,
      again.status,
      again.body.id === first.body.id,
      again.headers['idempotent-replayed'] ?? null,
    ]
  },

  // ----------------------------------------------------------------------------------------------- errors
  async 'unknown-parameter-coded-parameter-unknown'(api) {
    api.use(api.demoKey())
    const expanded = await api.call('GET', '/v1/agents?expand=voice')
    const limited = await api.call('GET', '/v1/agents?limit=0')
    return [status(expanded), expanded.body.error?.param, status(limited)]
  },

  async 'empty-body-parsed-as-empty-object'(api) {
    await freshKey(api)
    const agent = await api.agent('a')
    const json = { 'content-type': 'application/json' }
    const patched = await api.call('PATCH', `/v1/agents/${agent}`, undefined, { raw: '', headers: json })
    const made = await api.call('POST', '/v1/team-members', undefined, { raw: '', headers: json })
    return [status(patched), status(made)]
  },

  // ---------------------------------------------------------------------------------------- control plane
  async 'journal-status-class-filter-matches-nothing'(api) {
    await freshKey(api)
    await api.call('GET', '/v1/user')
    await api.call('GET', '/v1/agents/agt_missing0000')
    await api.call('GET', '/v1/agents?expand=voice')
    const failed = await control(api, 'GET', '/journal?status=4xx')
    const notFound = await control(api, 'GET', '/journal?status=404')
    const route = (entry: { method: string; path: string; status: number }) =>
      `${entry.method} ${entry.path} ${entry.status}`.replace(/agt_\w+/, 'agt_*')
    return [failed.body.data.map(route), notFound.body.data.map(route)]
  },

  async 'accounts-listed-newest-first'(api) {
    const first = await api.account({ plan: 'free' })
    await api.advance(1)
    const second = await api.account({ plan: 'pro' })
    const list = await control(api, 'GET', '/accounts')
    return labels(list, { [first]: 'first', [second]: 'second' })
  },

  async 'deleted-webhook-secret-still-reported'(api) {
    const account = await api.account()
    await control(api, 'POST', `/accounts/${account}/webhook-secret`)
    const revoked = await control(api, 'DELETE', `/accounts/${account}/webhook-secret`)
    const shown = await control(api, 'GET', `/accounts/${account}/webhook-secret`)
    return [revoked.status, shown.body.exists, shown.body.created_at !== null]
  },
}

await showLive(faults, scenarios)

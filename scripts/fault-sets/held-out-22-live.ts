/**
 * Shows that every fault of held-out fault set 22 is live: for each one, a short scenario (accounts and keys
 * provisioned through the control plane, simulated calls and scenarios started there, then v1 and control-plane
 * requests sent as a client sends them) is run against a fresh correct engine, again against another fresh correct
 * engine (the scenario must observe the same thing twice: nothing random leaks into it), and against a fresh engine
 * wrapped in the fault. A fault is LIVE when its observation differs from the correct one. Ordinary traffic (the
 * first reads of every endpoint, a create and a read) is also run through each fault, which should leave it
 * unchanged. The engines' clocks are frozen at one instant and move only when a scenario advances them, so that
 * every run sees the same times (`npx tsx scripts/fault-sets/held-out-22-live.ts`).
 */
import { faults } from '../../test/fault-sets/held-out-22.ts'
import {
  type Api,
  agentBody,
  agentsApart,
  completedCall,
  control,
  freshKey,
  invite,
  names,
  showLive,
  status,
} from './live-harness.ts'

// -------------------------------------------------------------------------------------------- helpers

/** A secret key of a new account made with `input`, through the control plane; the key's answer. */
const keyAnswer = async (api: Api, account: string, input: Record<string, unknown>) =>
  control(api, 'POST', `/accounts/${account}/keys`, { type: 'secret', name: 'live', ...input })

// -------------------------------------------------------------------------------------------- scenarios

const scenarios: Record<string, (api: Api) => Promise<unknown>> = {
  // ------------------------------------------------------------------------------------------------- keys
  async 'empty-ip-allowlist-blocks-everything'(api) {
    const account = await api.account()
    const anywhere = await api.keyRecord(account, { restrictions: { allowed_ips: [] } })
    const user = await api.call('GET', '/v1/user', undefined, { key: anywhere.value })
    const made = await api.call('POST', '/v1/agents', agentBody('a'), { key: anywhere.value })
    const list = await api.call('GET', '/v1/agents', undefined, { key: anywhere.value })
    return [status(user), status(made), status(list), list.body.data?.length ?? null]
  },

  async 'origin-port-ignored'(api) {
    const account = await api.account()
    const key = await api.keyRecord(account, { restrictions: { allowed_origins: ['http://localhost:3000'] } })
    const other = await api.call('GET', '/v1/user', undefined, {
      key: key.value,
      headers: { origin: 'http://localhost:5173' },
    })
    const listed = await api.call('GET', '/v1/user', undefined, {
      key: key.value,
      headers: { origin: 'http://localhost:3000' },
    })
    return [status(other), other.headers['access-control-allow-origin'] ?? null, status(listed)]
  },

  async 'expiry-fraction-rounded-up'(api) {
    const account = await api.account()
    const made = await keyAnswer(api, account, { restrictions: { expires_at: '2026-03-10T13:00:00.5Z' } })
    await api.advance(3600.6)
    const late = await api.call('GET', '/v1/user', undefined, { key: made.body.value })
    return [made.status, made.body.restrictions?.expires_at, status(late)]
  },

  async 'api-key-query-parameter-accepted'(api) {
    const account = await api.account()
    const key = await api.keyRecord(account)
    const user = await api.call('GET', `/v1/user?api_key=${key.value}`, undefined, { key: '' })
    return status(user)
  },

  // ------------------------------------------------------------------------------------------ permissions
  async 'write-group-includes-read-scopes'(api) {
    const account = await api.account()
    const made = await keyAnswer(api, account, { name: 'builder', permissions: ['write'] })
    const logs = await api.call('GET', '/v1/call-logs', undefined, { key: made.body.value })
    const metrics = await api.call('GET', '/v1/analytics/calls', undefined, { key: made.body.value })
    return [made.body.permissions, status(logs), status(metrics)]
  },

  async 'publishable-extra-scopes-narrowed'(api) {
    const account = await api.account()
    const made = await control(api, 'POST', `/accounts/${account}/keys`, {
      type: 'publishable',
      name: 'widget',
      permissions: ['read'],
    })
    return [status(made), made.body.permissions ?? made.body.error?.param]
  },

  // ----------------------------------------------------------------------------------------------- errors
  async 'health-route-answered-without-key'(api) {
    const bare = await api.call('GET', '/v1/health', undefined, { key: '' })
    await freshKey(api, { plan: 'free' })
    const keyed = await api.call('GET', '/v1/health')
    const user = await api.call('GET', '/v1/user')
    return [status(bare), status(keyed), user.headers['x-ratelimit-remaining']]
  },

  async 'route-not-found-request-id-not-base62'(api) {
    await freshKey(api)
    const missing = await api.call('GET', '/v1/agentz')
    const id = missing.headers['request-id'] ?? ''
    return [status(missing), /^req_[A-Za-z0-9]+$/.test(id), missing.body.error?.request_id === id]
  },

  // ------------------------------------------------------------------------------------------ rate limits
  async 'exhausted-window-listed-first'(api) {
    await freshKey(api, { plan: 'free' })
    for (let i = 0; i < 10; i++) await api.call('GET', '/v1/user')
    const refused = await api.call('GET', '/v1/user')
    return [status(refused), refused.headers['ratelimit-policy'], refused.headers.ratelimit]
  },

  async 'plan-default-limits-not-kept-as-custom'(api) {
    const made = await control(api, 'POST', '/accounts', { plan: 'free', limits: { hourly: 100, burst: 10 } })
    const switched = await control(api, 'PATCH', `/accounts/${made.body.id}`, { plan: 'pro' })
    return [made.body.custom_limits, switched.body.limits, switched.body.custom_limits]
  },

  async 'usage-burst-used-read-from-hourly'(api) {
    const account = await freshKey(api)
    for (let i = 0; i < 3; i++) await api.call('GET', '/v1/user')
    await api.advance(61)
    const usage = await control(api, 'GET', `/accounts/${account}/rate-limit`)
    return usage.body.windows.map((w: { policy: string; used: number; remaining: number }) => [
      w.policy,
      w.used,
      w.remaining,
    ])
  },

  // ----------------------------------------------------------------------------------------------- agents
  async 'metadata-fifty-keys-refused'(api) {
    await freshKey(api)
    const metadata: Record<string, string> = {}
    for (let i = 0; i < 50; i++) metadata[`field_${i}`] = `value ${i}`
    const made = await api.call('POST', '/v1/agents', agentBody('crm mirror', { metadata }))
    return [status(made), Object.keys(made.body.metadata ?? {}).length]
  },

  async 'zero-temperature-ignored-on-update'(api) {
    await freshKey(api)
    const agent = await api.agent('booking')
    const patched = await api.call('PATCH', `/v1/agents/${agent}`, { llm: { temperature: 0 } })
    const read = await api.call('GET', `/v1/agents/${agent}`)
    return [patched.status, patched.body.llm?.temperature, read.body.llm?.temperature]
  },

  async 'publishable-view-omits-first-message'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('front desk', { first_message: 'Thanks for calling, this is Ava.' })
    const widget = await api.keyRecord(account, { type: 'publishable' })
    const read = await api.call('GET', `/v1/agents/${agent}`, undefined, { key: widget.value })
    const list = await api.call('GET', '/v1/agents', undefined, { key: widget.value })
    return [read.status, read.body.first_message ?? 'missing', list.body.data[0]?.first_message ?? 'missing']
  },

  // ------------------------------------------------------------------------------------------------ calls
  async 'call-log-delete-answers-agent-object'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    const call = await completedCall(api, account, agent)
    const deleted = await api.call('DELETE', `/v1/call-logs/${call}`)
    return [deleted.status, deleted.body.object, deleted.body.deleted]
  },

  async 'reversed-duration-bounds-accepted'(api) {
    api.use(api.demoKey())
    const swapped = await api.call('GET', '/v1/call-logs?min_duration_seconds=600&max_duration_seconds=60')
    return [status(swapped), swapped.body.error?.param ?? swapped.body.data?.length]
  },

  async 'control-calls-default-page-of-twenty'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    for (let i = 0; i < 12; i++) await api.startCall(account, agent)
    const listed = await control(api, 'GET', `/accounts/${account}/calls`)
    return [listed.body.data.length, listed.body.has_more]
  },

  // -------------------------------------------------------------------------------------------- analytics
  async 'analytics-deleted-agent-filter-refused'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('retired')
    await completedCall(api, account, agent)
    await api.call('DELETE', `/v1/agents/${agent}`)
    const metrics = await api.call('GET', `/v1/analytics/calls?agent_id=${agent}&granularity=total`)
    return [status(metrics), metrics.body.totals?.call_count ?? metrics.body.error?.param]
  },

  async 'analytics-duration-over-every-ended-call'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    await api.startCall(account, agent)
    await api.startCall(account, agent, { outcome: 'no_answer', ring_seconds: 7 })
    await api.advance(70)
    const metrics = await api.call('GET', '/v1/analytics/calls?granularity=total&group_by=direction')
    const totals = metrics.body.totals
    return [
      totals.completed_count,
      totals.total_duration_seconds,
      totals.avg_duration_seconds,
      metrics.body.groups?.[0]?.totals?.total_duration_seconds,
    ]
  },

  // ----------------------------------------------------------------------------------------- integrations
  async 'config-dropped-when-connecting'(api) {
    await freshKey(api)
    const connected = await api.call('PATCH', '/v1/integrations/slack', {
      enabled: true,
      config: { channel: '#ops' },
      credentials: { bot_token: 'xoxb-live-0000' },
    })
    const read = await api.call('GET', '/v1/integrations/slack')
    return [connected.body.status, connected.body.config, read.body.config]
  },

  async 'credential-hint-cut-in-utf16-units'(api) {
    await freshKey(api)
    const connected = await api.call('PATCH', '/v1/integrations/slack', {
      credentials: { bot_token: 'xoxb-live-12\u{1F600}' },
    })
    const read = await api.call('GET', '/v1/integrations/slack')
    return [connected.body.credential_hint, read.body.credential_hint]
  },

  // ------------------------------------------------------------------------------------------------- team
  async 'invitation-as-owner-accepted'(api) {
    await freshKey(api)
    const invited = await invite(api, 'lee@live.test', { role: 'owner' })
    const list = await api.call('GET', '/v1/team-members')
    return [status(invited), list.body.data.filter((m: { role: string }) => m.role === 'owner').length]
  },

  async 'join-clears-invited-at'(api) {
    const account = await freshKey(api)
    const member = await invite(api, 'lee@live.test', { name: 'Lee Park' })
    await api.advance(300)
    const joined = await control(api, 'POST', `/accounts/${account}/team-members/${member.body.id}/join`)
    const read = await api.call('GET', `/v1/team-members/${member.body.id}`)
    return [joined.body.status, joined.body.invited_at, read.body.invited_at]
  },

  // ------------------------------------------------------------------------------------------- pagination
  async 'cursor-of-another-collection-accepted'(api) {
    const account = await freshKey(api)
    const [older] = await agentsApart(api, ['older'])
    const call = await api.startCall(account, older as string)
    await api.advance(1)
    await api.agent('newer')
    const after = await api.call('GET', `/v1/agents?starting_after=${call}`)
    const before = await api.call('GET', `/v1/agents?ending_before=${call}`)
    return [status(after), names(after), status(before), names(before)]
  },

  // ------------------------------------------------------------------------------------------ idempotency
  async 'reset-keeps-idempotency-records'(api) {
    api.use(api.demoKey())
    const headers = { 'idempotency-key': 'create-front-desk-1' }
    const first = await api.call('POST', '/v1/agents', agentBody('front desk'), { headers })
    await control(api, 'POST', '/reset')
    api.use(api.demoKey())
    const again = await api.call('POST', '/v1/agents', agentBody('front desk'), { headers })
    const other = await api.call('POST', '/v1/agents', agentBody('back office'), { headers })
    return [
      first.status,
      again.status,
      again.headers['idempotent-replayed'] ?? null,
      again.body.id === first.body.id,
      status(other),
    ]
  },

  // ---------------------------------------------------------------------------------------- control plane
  async 'scenario-times-applies-once-more'(api) {
    await freshKey(api)
    await control(api, 'POST', '/scenarios', { operation: 'listAgents', status: 503, times: 1 })
    const seen: unknown[] = []
    for (let i = 0; i < 3; i++) seen.push(status(await api.call('GET', '/v1/agents')))
    return seen
  },

  async 'scenario-matched-before-authentication'(api) {
    await control(api, 'POST', '/scenarios', { operation: 'getUser', status: 503 })
    const none = await api.call('GET', '/v1/user', undefined, { key: '' })
    const wrong = await api.call('GET', '/v1/user', undefined, {
      key: 'sk-svc-0000000000000000000000000000000000000000',
    })
    await control(api, 'DELETE', '/scenarios')
    return [status(none), status(wrong)]
  },

  async 'journal-path-keeps-query-string'(api) {
    await freshKey(api)
    await api.call('GET', '/v1/agents?limit=5')
    const journal = await control(api, 'GET', '/journal?limit=1')
    return journal.body.data.map((entry: { path: string; status: number }) => `${entry.path} ${entry.status}`)
  },

  async 'journal-leaves-out-429s'(api) {
    await freshKey(api, { plan: 'free' })
    for (let i = 0; i < 12; i++) await api.call('GET', '/v1/user')
    const refused = await control(api, 'GET', '/journal?status=429')
    const failed = await control(api, 'GET', '/journal?status=4xx')
    return [refused.body.data.length, failed.body.data.length]
  },

  async 'dashboard-agents-list-keeps-deleted'(api) {
    const account = await freshKey(api)
    const [, drop] = await agentsApart(api, ['keep', 'drop'])
    await api.call('DELETE', `/v1/agents/${drop}`)
    return names(await control(api, 'GET', `/accounts/${account}/agents`))
  },
}

await showLive(faults, scenarios)

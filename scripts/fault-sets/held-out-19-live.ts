/**
 * Shows that every fault of held-out fault set 19 is live: for each one, a short scenario (accounts and keys
 * provisioned through the control plane, simulated calls started there, then v1 requests sent as a client sends them
 * over the life of its objects: made, changed many times, removed and made again, connected and disconnected, keys
 * rotated, plans changed, and the reads that show what was kept) is run against a fresh correct engine, again against
 * another fresh correct engine (the scenario must observe the same thing twice: nothing random leaks into it), and
 * against a fresh engine wrapped in the fault. A fault is LIVE when its observation differs from the correct one.
 * Ordinary traffic (the first reads of every endpoint, a create and a read) is also run through each fault, which
 * should leave it unchanged. The engines' clocks are frozen at one instant and move only when a scenario advances
 * them, so that every run sees the same times (`npx tsx scripts/fault-sets/held-out-19-live.ts`).
 */
import { faults } from '../../test/fault-sets/held-out-19.ts'
import {
  type Answer,
  type Api,
  agentBody,
  agentsApart,
  at,
  control,
  freshKey,
  HOUR,
  invite,
  labelled,
  names,
  seconds,
  showLive,
  status,
} from './live-harness.ts'

// -------------------------------------------------------------------------------------------- helpers

/** The local parts of a list's e-mail addresses (the owner's, made from the random account ID, as `owner`). */
const emails = (answer: Answer) =>
  (answer.body?.data ?? []).map((item: { email?: string; role?: string }) =>
    item.role === 'owner' ? 'owner' : item.email?.split('@')[0],
  )
const connect = (api: Api, token: string, extra: Record<string, unknown> = {}) =>
  api.call('PATCH', '/v1/integrations/slack', { credentials: { bot_token: token }, ...extra })

// -------------------------------------------------------------------------------------------- scenarios

const scenarios: Record<string, (api: Api) => Promise<unknown>> = {
  // --------------------------------------------------------------------------------------------- updates
  async 'agent-update-refused-after-100-revisions'(api) {
    await freshKey(api, { plan: 'enterprise' })
    const agent = await api.agent('a')
    let hundredth: Answer | undefined
    for (let i = 1; i <= 100; i++)
      hundredth = await api.call('PATCH', `/v1/agents/${agent}`, { description: `revision ${i}` })
    const next = await api.call('PATCH', `/v1/agents/${agent}`, { description: 'revision 101' })
    const read = await api.call('GET', `/v1/agents/${agent}`)
    return [hundredth?.status, status(next), read.body.description]
  },

  async 'reactivated-agent-restamps-created-at'(api) {
    await freshKey(api)
    const created = await api.call('POST', '/v1/agents', agentBody('a'))
    await api.advance(10)
    await api.call('PATCH', `/v1/agents/${created.body.id}`, { status: 'inactive' })
    await api.advance(10)
    const active = await api.call('PATCH', `/v1/agents/${created.body.id}`, { status: 'active' })
    const read = await api.call('GET', `/v1/agents/${created.body.id}`)
    return [
      seconds(created.body.created_at, active.body.created_at),
      seconds(created.body.created_at, read.body.created_at),
    ]
  },

  async 'metadata-only-update-keeps-updated-at'(api) {
    await freshKey(api)
    const created = await api.call('POST', '/v1/agents', agentBody('a', { metadata: { region: 'eu' } }))
    await api.advance(30)
    const patched = await api.call('PATCH', `/v1/agents/${created.body.id}`, { metadata: { region: 'us' } })
    const read = await api.call('GET', `/v1/agents/${created.body.id}`)
    return [
      patched.body.metadata,
      seconds(created.body.updated_at, patched.body.updated_at),
      seconds(created.body.updated_at, read.body.updated_at),
    ]
  },

  async 'new-webhook-url-resets-subscriptions'(api) {
    await freshKey(api)
    const agent = await api.agent('a', {
      webhook_url: 'https://hooks.live.test/v1',
      webhook_events: ['call.ended', 'call.analyzed'],
    })
    const cleared = await api.call('PATCH', `/v1/agents/${agent}`, { webhook_url: null })
    const again = await api.call('PATCH', `/v1/agents/${agent}`, {
      webhook_url: 'https://hooks.live.test/v2',
    })
    const read = await api.call('GET', `/v1/agents/${agent}`)
    return [cleared.body.webhook_events, again.body.webhook_events, read.body.webhook_events]
  },

  // ------------------------------------------------------------------------------------------------ reuse
  async 'readded-metadata-key-keeps-old-value'(api) {
    await freshKey(api)
    const agent = await api.agent('a', { metadata: { region: 'eu', tier: 'gold' } })
    await api.call('PATCH', `/v1/agents/${agent}`, { metadata: { tier: 'gold' } })
    const again = await api.call('PATCH', `/v1/agents/${agent}`, { metadata: { tier: 'gold', region: 'us' } })
    const read = await api.call('GET', `/v1/agents/${agent}`)
    return [again.body.metadata, read.body.metadata]
  },

  async 'deleted-agent-name-reserved'(api) {
    await freshKey(api)
    const agent = await api.agent('Front desk')
    await api.call('DELETE', `/v1/agents/${agent}`)
    const again = await api.call('POST', '/v1/agents', agentBody('Front desk'))
    const other = await api.call('POST', '/v1/agents', agentBody('Back office'))
    return [status(again), again.body.name ?? null, other.status]
  },

  async 'reinvite-keeps-first-invited-at'(api) {
    await freshKey(api)
    const first = await invite(api, 'lee@live.test')
    await api.advance(600)
    await api.call('DELETE', `/v1/team-members/${first.body.id}`)
    await api.advance(600)
    const again = await invite(api, 'lee@live.test')
    const read = await api.call('GET', `/v1/team-members/${again.body.id}`)
    return [
      seconds(again.body.created_at, again.body.invited_at),
      seconds(read.body.created_at, read.body.invited_at),
    ]
  },

  async 'former-member-reinvited-active'(api) {
    api.use(api.demoKey())
    const team = await api.call('GET', '/v1/team-members?limit=100')
    const member = (team.body.data as { id: string; email: string; role: string; status: string }[]).find(
      (one) => one.status === 'active' && one.role !== 'owner',
    )
    if (!member) throw new Error('the demo team has no active member')
    await api.call('DELETE', `/v1/team-members/${member.id}`)
    const again = await invite(api, member.email)
    const read = await api.call('GET', `/v1/team-members/${again.body.id}`)
    return [again.status, again.body.status, again.body.joined_at === null, read.body.status]
  },

  // ------------------------------------------------------------------------------------------ pagination
  async 'deleted-cursor-skips-its-neighbour'(api) {
    await freshKey(api)
    const [, , c] = await agentsApart(api, ['a', 'b', 'c', 'd'])
    const first = await api.call('GET', '/v1/agents?limit=2')
    await api.call('DELETE', `/v1/agents/${c}`)
    const next = await api.call('GET', `/v1/agents?limit=2&starting_after=${c}`)
    return [names(first), names(next), next.body.has_more]
  },

  async 'removed-members-eat-page-slots'(api) {
    await freshKey(api)
    await api.advance(1)
    const ids: string[] = []
    for (const name of ['m1', 'm2', 'm3', 'm4']) {
      ids.push((await invite(api, `${name}@live.test`)).body.id)
      await api.advance(1)
    }
    await api.call('DELETE', `/v1/team-members/${ids[2]}`)
    const page = await api.call('GET', '/v1/team-members?limit=2')
    const rest = await api.call('GET', `/v1/team-members?limit=2&starting_after=${ids[1]}`)
    return [emails(page), page.body.has_more, emails(rest)]
  },

  async 'deleted-agents-back-on-ending-before-pages'(api) {
    await freshKey(api)
    const [a, b] = await agentsApart(api, ['a', 'b', 'c'])
    await api.call('DELETE', `/v1/agents/${b}`)
    const back = await api.call('GET', `/v1/agents?ending_before=${a}`)
    const forward = await api.call('GET', '/v1/agents')
    return [names(back), names(forward)]
  },

  // -------------------------------------------------------------------------------------------- counters
  async 'agent-limit-counts-deleted-agents'(api) {
    await freshKey(api, { plan: 'enterprise' })
    let last: Answer | undefined
    for (let i = 0; i < 1000; i++) {
      if (i > 0 && i % 450 === 0) await api.advance(61)
      last = await api.call('POST', '/v1/agents', agentBody(`agent ${i}`))
    }
    await api.call('DELETE', `/v1/agents/${last?.body.id}`)
    const again = await api.call('POST', '/v1/agents', agentBody('one more'))
    return [last?.status, status(again)]
  },

  async 'emptied-agent-group-kept-after-deletes'(api) {
    const account = await freshKey(api)
    const [a, b] = await agentsApart(api, ['a', 'b'])
    await api.startCall(account, a as string)
    const gone = await api.startCall(account, b as string)
    await api.advance(70)
    await api.call('DELETE', `/v1/call-logs/${gone}`)
    const grouped = await api.call('GET', '/v1/analytics/calls?granularity=total&group_by=agent_id')
    const labels = { [a as string]: 'a', [b as string]: 'b' }
    return (grouped.body.groups as { value: string; totals: { call_count: number } }[]).map((group) => [
      labels[group.value] ?? '?',
      group.totals.call_count,
    ])
  },

  async 'started-filters-miss-live-calls'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    const call = await api.startCall(account, agent)
    await api.advance(70)
    const filtered = await api.call('GET', `/v1/call-logs?started_after=${at(-HOUR)}`)
    const all = await api.call('GET', '/v1/call-logs')
    const labels = { [call]: 'live' }
    return [labelled(filtered, labels), labelled(all, labels)]
  },

  // ----------------------------------------------------------------------------------------- connections
  async 'disconnect-clears-config'(api) {
    await freshKey(api)
    await connect(api, 'xoxb-live-0000', { config: { channel: '#ops' } })
    const off = await api.call('PATCH', '/v1/integrations/slack', { credentials: null })
    const read = await api.call('GET', '/v1/integrations/slack')
    return [off.body.status, off.body.config, read.body.config]
  },

  async 'reconnect-restores-first-connected-at'(api) {
    await freshKey(api)
    const first = await connect(api, 'xoxb-live-0000')
    await api.advance(600)
    await api.call('PATCH', '/v1/integrations/slack', { credentials: null })
    await api.advance(600)
    const again = await connect(api, 'xoxb-live-1111')
    const read = await api.call('GET', '/v1/integrations/slack')
    return [
      seconds(first.body.connected_at, again.body.connected_at),
      seconds(first.body.connected_at, read.body.connected_at),
    ]
  },

  async 'disabling-integration-disconnects-it'(api) {
    await freshKey(api)
    await connect(api, 'xoxb-live-0000', { enabled: true })
    const off = await api.call('PATCH', '/v1/integrations/slack', { enabled: false })
    const on = await api.call('PATCH', '/v1/integrations/slack', { enabled: true })
    return [off.body.status, off.body.credential_hint, on.body.status]
  },

  async 'credential-hint-from-first-stored-secret'(api) {
    await freshKey(api)
    const first = await connect(api, 'xoxb-live-0000')
    const rotated = await connect(api, 'xoxb-live-1111')
    const read = await api.call('GET', '/v1/integrations/slack')
    return [first.body.credential_hint, rotated.body.credential_hint, read.body.credential_hint]
  },

  // ------------------------------------------------------------------------------------------ revocation
  async 'revocation-cuts-every-older-key'(api) {
    const account = await api.account()
    const old = await api.keyRecord(account, { name: 'old' })
    await api.advance(5)
    const fresh = await api.keyRecord(account, { name: 'new' })
    await api.advance(5)
    await control(api, 'POST', `/keys/${old.id}/revoke`)
    const rotated = await api.call('GET', '/v1/user', undefined, { key: fresh.value })
    await api.advance(5)
    const later = await api.keyRecord(account, { name: 'later' })
    const after = await api.call('GET', '/v1/user', undefined, { key: later.value })
    return [status(rotated), after.status]
  },

  async 'deleted-account-keys-reported-revoked'(api) {
    const account = await api.account()
    await api.key(account)
    await control(api, 'DELETE', `/accounts/${account}`)
    const refused = await api.call('GET', '/v1/user')
    const message = String(refused.body.error?.message ?? '')
    return [status(refused), /revoked/.test(message), /Invalid/.test(message)]
  },

  async 'revoked-keys-usage-dropped-from-windows'(api) {
    const account = await api.account({ plan: 'free' })
    const old = await api.keyRecord(account, { name: 'old' })
    for (let i = 0; i < 6; i++) await api.call('GET', '/v1/user', undefined, { key: old.value })
    const fresh = await api.keyRecord(account, { name: 'new' })
    await control(api, 'POST', `/keys/${old.id}/revoke`)
    const answer = await api.call('GET', '/v1/user', undefined, { key: fresh.value })
    return [answer.status, answer.headers.ratelimit, answer.headers['x-ratelimit-remaining']]
  },

  async 'journal-drops-revoked-key-id'(api) {
    const account = await api.account()
    const old = await api.keyRecord(account, { name: 'old' })
    await control(api, 'POST', `/keys/${old.id}/revoke`)
    const refused = await api.call('GET', '/v1/user', undefined, { key: old.value })
    const journal = await control(api, 'GET', '/journal?limit=1')
    const entry = journal.body.data?.[0] ?? {}
    const byKey = await control(api, 'GET', `/journal?key_id=${old.id}`)
    return [
      refused.status,
      entry.status,
      entry.key_id === old.id,
      entry.account_id === account,
      byKey.body.data?.length,
    ]
  },

  // ----------------------------------------------------------------------------------------------- plans
  async 'quota-change-starts-empty-windows'(api) {
    const account = await freshKey(api)
    for (let i = 0; i < 20; i++) await api.call('GET', '/v1/user')
    await control(api, 'PATCH', `/accounts/${account}`, { plan: 'free' })
    const after = await api.call('GET', '/v1/user')
    return [status(after), after.headers.ratelimit]
  },

  async 'plan-switch-drops-custom-limits'(api) {
    const account = await freshKey(api, { plan: 'free', limits: { hourly: 500, burst: 20 } })
    const switched = await control(api, 'PATCH', `/accounts/${account}`, { plan: 'pro' })
    const user = await api.call('GET', '/v1/user')
    return [switched.body.custom_limits, switched.body.limits, user.headers['ratelimit-policy']]
  },

  async 'plan-change-restamps-user-created-at'(api) {
    const account = await freshKey(api, { plan: 'free' })
    const before = await api.call('GET', '/v1/user')
    await api.advance(HOUR)
    await control(api, 'PATCH', `/accounts/${account}`, { plan: 'pro' })
    const after = await api.call('GET', '/v1/user')
    const record = await control(api, 'GET', `/accounts/${account}`)
    return [
      after.body.plan,
      seconds(before.body.created_at, after.body.created_at),
      record.body.created_at === before.body.created_at,
    ]
  },

  async 'dropped-custom-limits-kept'(api) {
    const account = await freshKey(api, { plan: 'pro', limits: { hourly: 5000, burst: 100 } })
    const dropped = await control(api, 'PATCH', `/accounts/${account}`, { limits: null })
    const user = await api.call('GET', '/v1/user')
    return [dropped.status, dropped.body.custom_limits, dropped.body.limits, user.headers['ratelimit-policy']]
  },

  // --------------------------------------------------------------------------------------------- reuse
  async 'reused-idempotency-key-not-stored-again'(api) {
    await freshKey(api)
    const headers = { 'idempotency-key': 'import-2026-03-10' }
    const first = await api.call('POST', '/v1/agents', agentBody('a'), { headers })
    await api.advance(25 * HOUR)
    const second = await api.call('POST', '/v1/agents', agentBody('b'), { headers })
    const retry = await api.call('POST', '/v1/agents', agentBody('b'), { headers })
    const list = await api.call('GET', '/v1/agents')
    return [
      first.status,
      second.status,
      retry.status,
      retry.headers['idempotent-replayed'] ?? null,
      retry.body.id === second.body.id,
      names(list),
    ]
  },

  // ------------------------------------------------------------------------------------------- relations
  async 'past-recordings-hidden-after-recording-disabled'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a', { recording_enabled: true })
    const call = await api.startCall(account, agent)
    await api.advance(70)
    const recorded = await api.call('GET', `/v1/call-logs/${call}`)
    await api.call('PATCH', `/v1/agents/${agent}`, { recording_enabled: false })
    const read = await api.call('GET', `/v1/call-logs/${call}`)
    const list = await api.call('GET', '/v1/call-logs')
    return [
      recorded.body.recording_url !== null,
      read.body.recording_url !== null,
      list.body.data[0]?.recording_url !== null,
    ]
  },

  async 'agent-deletion-cancels-its-unconnected-calls'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    const call = await api.startCall(account, agent, { ring_seconds: 10 })
    await api.advance(3)
    await api.call('DELETE', `/v1/agents/${agent}`)
    await api.advance(80)
    const read = await api.call('GET', `/v1/call-logs/${call}`)
    return [read.body.status, read.body.duration_seconds, read.body.transcript?.length > 0]
  },

  async 'orphaned-call-logs-undeletable'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    const call = await api.startCall(account, agent)
    await api.advance(70)
    await api.call('DELETE', `/v1/agents/${agent}`)
    const removed = await api.call('DELETE', `/v1/call-logs/${call}`)
    const read = await api.call('GET', `/v1/call-logs/${call}`)
    return [status(removed), read.status]
  },
}

await showLive(faults, scenarios)

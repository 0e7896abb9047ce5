/**
 * Shows that every fault of held-out fault set 6 is live: for each one, a short scenario (accounts and keys
 * provisioned through the control plane, then v1 requests sent as a client over HTTP sends them, the mock clock
 * moved where time matters) is run against a fresh correct engine, again against another fresh correct engine (the
 * scenario must observe the same thing twice: nothing random leaks into it), and against a fresh engine wrapped in
 * the fault. A fault is LIVE when its observation differs from the correct one. Ordinary traffic (the first reads
 * of every endpoint, a create and a read) is also run through each fault, which should leave it unchanged. The
 * engines' clocks are frozen at one instant and move only when a scenario advances them, so that every run sees
 * the same times (`node --import tsx scripts/fault-sets/held-out-6-live.ts`).
 */
import { faults } from '../../test/fault-sets/held-out-6.ts'
import {
  type Api,
  agentBody,
  agentsApart,
  at,
  errorCode,
  HOUR,
  labelled,
  names,
  seconds,
  showLive,
} from './live-harness.ts'

// -------------------------------------------------------------------------------------------- scenarios

const scenarios: Record<string, (api: Api) => Promise<unknown>> = {
  async 'has-more-counts-deleted-rows'(api) {
    await api.key(await api.account())
    const [oldest] = await agentsApart(api, ['a0', 'a1', 'a2'])
    await api.call('DELETE', `/v1/agents/${oldest}`)
    const page = await api.call('GET', '/v1/agents?limit=2')
    const rest = await api.call('GET', `/v1/agents?limit=2&starting_after=${page.body.data[1].id}`)
    return { names: names(page), has_more: page.body.has_more, rest: names(rest) }
  },

  async 'ending-before-page-oldest-first'(api) {
    await api.key(await api.account())
    const [oldest] = await agentsApart(api, ['a0', 'a1', 'a2', 'a3'])
    const page = await api.call('GET', `/v1/agents?ending_before=${oldest}&limit=5`)
    return { status: page.status, names: names(page) }
  },

  async 'starting-after-includes-cursor'(api) {
    await api.key(await api.account())
    const ids = await agentsApart(api, ['a0', 'a1', 'a2'])
    const page = await api.call('GET', `/v1/agents?starting_after=${ids[2]}&limit=5`)
    return { status: page.status, names: names(page), has_more: page.body.has_more }
  },

  async 'analytics-groups-by-completed-count'(api) {
    const account = await api.account()
    await api.key(account)
    const busy = await api.agent('busy')
    const closer = await api.agent('closer')
    await api.startCall(account, busy, { outcome: 'no_answer', ring_seconds: 2 })
    await api.startCall(account, busy, { outcome: 'no_answer', ring_seconds: 2 })
    await api.startCall(account, closer, { duration_seconds: 20 })
    await api.advance(60)
    const stats = await api.call('GET', '/v1/analytics/calls?granularity=total&group_by=agent_id')
    const label: Record<string, string> = { [busy]: 'busy', [closer]: 'closer' }
    return stats.body.groups.map((group: { value: string }) => label[group.value])
  },

  async 'agent-filtered-call-logs-oldest-first'(api) {
    const account = await api.account()
    await api.key(account)
    const agent = await api.agent('a')
    const labels: Record<string, string> = {}
    for (const label of ['first', 'second', 'third']) {
      labels[await api.startCall(account, agent)] = label
      await api.advance(1)
    }
    const filtered = await api.call('GET', `/v1/call-logs?agent_id=${agent}`)
    const all = await api.call('GET', '/v1/call-logs')
    return { filtered: labelled(filtered, labels), all: labelled(all, labels) }
  },

  async 'member-role-change-crosses-accounts'(api) {
    const owner = await api.key(await api.account())
    const member = (await api.call('POST', '/v1/team-members', { email: 'kim@live.test' })).body.id
    await api.key(await api.account())
    const patched = await api.call('PATCH', `/v1/team-members/${member}`, { role: 'admin' })
    const read = await api.call('GET', `/v1/team-members/${member}`, undefined, { key: owner })
    return { patched: [patched.status, errorCode(patched)], role: read.body.role }
  },

  async 'analytics-agent-filter-crosses-accounts'(api) {
    const first = await api.account()
    await api.key(first)
    const agent = await api.agent('a')
    await api.startCall(first, agent)
    await api.advance(10)
    await api.key(await api.account())
    const stats = await api.call('GET', `/v1/analytics/calls?granularity=total&agent_id=${agent}`)
    return { status: stats.status, calls: stats.body.totals?.call_count }
  },

  async 'call-log-deletable-across-accounts'(api) {
    const first = await api.account()
    const owner = await api.key(first)
    const call = await api.startCall(first, await api.agent('a'))
    await api.key(await api.account())
    const removal = await api.call('DELETE', `/v1/call-logs/${call}`)
    const after = await api.call('GET', `/v1/call-logs/${call}`, undefined, { key: owner })
    return { removal: [removal.status, errorCode(removal)], owner: after.status }
  },

  async 'integration-update-guarded-by-agents-write'(api) {
    const account = await api.account()
    await api.key(account)
    const agents = await api.keyRecord(account, { permissions: ['agents:write'] })
    const integrations = await api.keyRecord(account, { permissions: ['integrations:write'] })
    const a = await api.call('PATCH', '/v1/integrations/slack', { enabled: true }, { key: agents.value })
    const i = await api.call(
      'PATCH',
      '/v1/integrations/zapier',
      { enabled: true },
      { key: integrations.value },
    )
    return {
      agentsKey: [a.status, a.body.error?.required_permission ?? null],
      integrationsKey: [i.status, i.body.error?.required_permission ?? null],
    }
  },

  async 'team-members-readable-with-read-scopes'(api) {
    const account = await api.account()
    await api.key(account)
    const reader = await api.keyRecord(account, { permissions: ['read'] })
    const list = await api.call('GET', '/v1/team-members', undefined, { key: reader.value })
    return { status: list.status, required: list.body.error?.required_permission ?? null }
  },

  async 'ip-restriction-enforced-on-writes-only'(api) {
    await api.key(await api.account(), { restrictions: { allowed_ips: ['10.0.0.0/8'] } })
    const read = await api.call('GET', '/v1/agents')
    const write = await api.call('POST', '/v1/agents', agentBody('a'))
    return { read: [read.status, errorCode(read)], write: [write.status, errorCode(write)] }
  },

  async 'call-ended-at-in-local-time'(api) {
    const account = await api.account()
    await api.key(account)
    const call = await api.startCall(account, await api.agent('a'), { duration_seconds: 30 })
    await api.advance(60)
    const log = (await api.call('GET', `/v1/call-logs/${call}`)).body
    return { status: log.status, span: seconds(log.started_at, log.ended_at), duration: log.duration_seconds }
  },

  async 'week-buckets-start-on-sunday'(api) {
    const account = await api.account()
    await api.key(account)
    await api.startCall(account, await api.agent('a'))
    await api.advance(10)
    const stats = await api.call(
      'GET',
      `/v1/analytics/calls?granularity=week&start=2026-03-01T00:00:00Z&end=${at(10)}`,
    )
    return {
      status: stats.status,
      granularity: stats.body.granularity,
      buckets: stats.body.series.map((b: { start: string; metrics: { call_count: number } }) => [
        b.start,
        b.metrics.call_count,
      ]),
    }
  },

  async 'started-filters-compare-created-at'(api) {
    const account = await api.account()
    await api.key(account)
    await api.startCall(account, await api.agent('a'))
    const list = await api.call('GET', `/v1/call-logs?started_after=${at(-60)}`)
    return { status: list.status, statuses: list.body.data.map((log: { status: string }) => log.status) }
  },

  async 'ringing-reported-as-queued'(api) {
    const account = await api.account()
    await api.key(account)
    const call = await api.startCall(account, await api.agent('a'))
    await api.advance(2)
    const log = (await api.call('GET', `/v1/call-logs/${call}`)).body
    return { status: log.status, started: log.started_at !== null }
  },

  async 'idempotency-expiry-renewed-by-replays'(api) {
    await api.key(await api.account())
    const headers = { 'idempotency-key': 'nightly-import-0001' }
    const first = await api.call('POST', '/v1/agents', agentBody('a'), { headers })
    await api.advance(20 * HOUR)
    const soon = await api.call('POST', '/v1/agents', agentBody('a'), { headers })
    await api.advance(5 * HOUR)
    const late = await api.call('POST', '/v1/agents', agentBody('a'), { headers })
    const list = await api.call('GET', '/v1/agents')
    return {
      first: first.status,
      soon: [soon.status, soon.headers['idempotent-replayed'] ?? null],
      late: [late.status, late.headers['idempotent-replayed'] ?? null],
      agents: list.body.data.length,
    }
  },

  async 'other-body-replays-first-answer'(api) {
    await api.key(await api.account())
    const headers = { 'idempotency-key': 'create-agent-0042' }
    await api.call('POST', '/v1/agents', agentBody('front desk'), { headers })
    const other = await api.call('POST', '/v1/agents', agentBody('back office'), { headers })
    return {
      status: other.status,
      code: errorCode(other),
      replayed: other.headers['idempotent-replayed'] ?? null,
    }
  },

  async 'replay-shows-current-object'(api) {
    await api.key(await api.account())
    const headers = { 'idempotency-key': 'create-agent-0077' }
    const first = await api.call('POST', '/v1/agents', agentBody('front desk'), { headers })
    await api.advance(5)
    await api.call('PATCH', `/v1/agents/${first.body.id}`, { name: 'renamed' })
    const retry = await api.call('POST', '/v1/agents', agentBody('front desk'), { headers })
    return {
      status: retry.status,
      replayed: retry.headers['idempotent-replayed'] ?? null,
      name: retry.body.name,
      moved: seconds(retry.body.created_at, retry.body.updated_at),
    }
  },

  async 'overlong-idempotency-key-truncated'(api) {
    await api.key(await api.account())
    const made = await api.call('POST', '/v1/agents', agentBody('a'), {
      headers: { 'idempotency-key': 'k'.repeat(300) },
    })
    return { status: made.status, code: errorCode(made), param: made.body.error?.param ?? null }
  },

  async 'name-length-counted-in-utf16-units'(api) {
    await api.key(await api.account())
    const made = await api.call('POST', '/v1/agents', agentBody('🎧'.repeat(60)))
    return {
      status: made.status,
      params:
        made.body.error?.errors?.map((e: { param: string; code: string }) => `${e.param}:${e.code}`) ?? null,
    }
  },

  async 'short-credentials-accepted'(api) {
    await api.key(await api.account())
    const patched = await api.call('PATCH', '/v1/integrations/slack', { credentials: { bot_token: 'ab12' } })
    return { status: patched.status, code: errorCode(patched), connection: patched.body.status ?? null }
  },

  async 'required-permission-names-team-scope-first'(api) {
    const account = await api.account()
    await api.key(account)
    const member = (await api.call('POST', '/v1/team-members', { email: 'lee@live.test' })).body.id
    const reader = await api.keyRecord(account, { permissions: ['read'] })
    const removal = await api.call('DELETE', `/v1/team-members/${member}`, undefined, { key: reader.value })
    return { status: removal.status, required: removal.body.error?.required_permission ?? null }
  },

  async 'idempotency-conflict-before-validation'(api) {
    await api.key(await api.account())
    const headers = { 'idempotency-key': 'create-agent-0099' }
    await api.call('POST', '/v1/agents', agentBody('front desk'), { headers })
    const invalid = await api.call('POST', '/v1/agents', agentBody(''), { headers })
    return { status: invalid.status, code: errorCode(invalid) }
  },

  async 'body-parsed-before-permission'(api) {
    const account = await api.account()
    await api.key(account)
    const reader = await api.keyRecord(account, { permissions: ['read'] })
    const malformed = await api.call('POST', '/v1/agents', undefined, {
      key: reader.value,
      raw: '{"name": "a",',
    })
    const text = await api.call('POST', '/v1/agents', undefined, {
      key: reader.value,
      raw: 'name=a',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    return { malformed: [malformed.status, errorCode(malformed)], text: [text.status, errorCode(text)] }
  },

  async 'ratelimit-headers-missing-on-error-answers'(api) {
    await api.key(await api.account())
    const missing = await api.call('GET', '/v1/agents/agt_0000000000000000')
    return { status: missing.status, ratelimit: missing.headers.ratelimit ?? null }
  },

  async 'ratelimit-policy-from-plan-table'(api) {
    await api.key(await api.account({ plan: 'free', limits: { hourly: 30, burst: 5 } }))
    const user = await api.call('GET', '/v1/user')
    return {
      policy: user.headers['ratelimit-policy'],
      limit: user.headers['x-ratelimit-limit'],
      remaining: user.headers['x-ratelimit-remaining'],
    }
  },

  async 'agent-list-cache-kept-across-updates'(api) {
    await api.key(await api.account())
    const id = await api.agent('a')
    const before = await api.call('GET', '/v1/agents')
    await api.call('PATCH', `/v1/agents/${id}`, { name: 'b' })
    const after = await api.call('GET', '/v1/agents')
    const one = await api.call('GET', `/v1/agents/${id}`)
    return { before: names(before), after: names(after), one: one.body.name }
  },

  async 'credential-rotation-keeps-connected-at'(api) {
    await api.key(await api.account())
    await api.call('PATCH', '/v1/integrations/slack', { credentials: { bot_token: 'xoxb-first-1234' } })
    await api.advance(60)
    const rotated = await api.call('PATCH', '/v1/integrations/slack', {
      credentials: { bot_token: 'xoxb-second-5678' },
    })
    const read = await api.call('GET', '/v1/integrations/slack')
    return {
      hint: rotated.body.credential_hint,
      rotated: seconds(at(0), rotated.body.connected_at),
      read: seconds(at(0), read.body.connected_at),
    }
  },

  async 'deleted-agents-calls-left-out-of-analytics'(api) {
    const account = await api.account()
    await api.key(account)
    const gone = await api.agent('gone')
    const kept = await api.agent('kept')
    await api.startCall(account, gone)
    await api.startCall(account, kept)
    await api.advance(10)
    await api.call('DELETE', `/v1/agents/${gone}`)
    const stats = await api.call('GET', '/v1/analytics/calls?granularity=total')
    const own = await api.call('GET', `/v1/analytics/calls?granularity=total&agent_id=${gone}`)
    const logs = await api.call('GET', '/v1/call-logs')
    return {
      total: stats.body.totals.call_count,
      series: stats.body.series[0].metrics.call_count,
      groups: stats.body.groups,
      own: own.body.totals.call_count,
      logs: logs.body.data.length,
    }
  },

  async 'role-change-accepts-invitation'(api) {
    await api.key(await api.account())
    const member = (await api.call('POST', '/v1/team-members', { email: 'ana@live.test' })).body.id
    await api.advance(30)
    const patched = await api.call('PATCH', `/v1/team-members/${member}`, { role: 'editor' })
    const read = await api.call('GET', `/v1/team-members/${member}`)
    return {
      patched: [patched.body.role, patched.body.status, patched.body.joined_at],
      read: [read.body.status, read.body.joined_at],
    }
  },
}

await showLive(faults, scenarios)

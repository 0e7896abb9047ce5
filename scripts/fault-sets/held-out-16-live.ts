/**
 * Shows that every fault of held-out fault set 16 is live: for each one, a short scenario (accounts and keys
 * provisioned through the control plane, simulated calls started there, then v1 requests sent as a client sends them,
 * and the reads, lists and retries that show what the storage kept, the mock clock moved where time matters) is run
 * against a fresh correct engine, again against another fresh correct engine (the scenario must observe the same thing
 * twice: nothing random leaks into it), and against a fresh engine wrapped in the fault. A fault is LIVE when its
 * observation differs from the correct one. Ordinary traffic (the first reads of every endpoint, a create and a read)
 * is also run through each fault, which should leave it unchanged. The engines' clocks are frozen at one instant and
 * move only when a scenario advances them, so that every run sees the same times
 * (`npx tsx scripts/fault-sets/held-out-16-live.ts`).
 */
import { faults } from '../../test/fault-sets/held-out-16.ts'
import {
  type Answer,
  type Api,
  agentBody,
  at,
  completedCall,
  freshKey,
  seconds,
  showLive,
  status,
} from './live-harness.ts'

// -------------------------------------------------------------------------------------------- helpers

/** A new agent's whole answer. */
const created = (api: Api, name: string, extra: Record<string, unknown> = {}) =>
  api.call('POST', '/v1/agents', agentBody(name, extra))

const invite = (api: Api, email: string, headers: Record<string, string> = {}) =>
  api.call('POST', '/v1/team-members', { email }, { headers })

const ids = (answer: Answer): string[] => (answer.body?.data ?? []).map((item: { id: string }) => item.id)

/** The same ID with the case of its letters swapped (the prefix kept). */
const swapCase = (id: string) => {
  const [prefix, rest = ''] = id.split('_')
  const swapped = [...rest].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('')
  return `${prefix}_${swapped}`
}

const analytics = (api: Api, query: string) => api.call('GET', `/v1/analytics/calls?${query}`)

/** Whether a number is written (as JSON writes it) with at most `n` decimals. */
const decimals = (value: unknown, n: number) =>
  typeof value === 'number' && (String(value).split('.')[1] ?? '').length <= n

// -------------------------------------------------------------------------------------------- scenarios

const scenarios: Record<string, (api: Api) => Promise<unknown>> = {
  // ------------------------------------------------------------------------------------------- collation
  async 'credential-hint-key-sorted-by-collation'(api) {
    await freshKey(api)
    const patched = await api.call('PATCH', '/v1/integrations/slack', {
      credentials: { Token: 'xoxb-1111-AAAA', secret: 'abcd-2222-BBBB' },
    })
    const single = await api.call('PATCH', '/v1/integrations/zapier', {
      credentials: { api_key: 'zap-3333-CCCC' },
    })
    const read = await api.call('GET', '/v1/integrations/slack')
    return [
      patched.status,
      patched.body.credential_hint,
      read.body.credential_hint,
      single.body.credential_hint,
    ]
  },

  async 'metadata-keys-folded-by-collation'(api) {
    await freshKey(api)
    const made = await created(api, 'crm', { metadata: { Region: 'emea', region: 'apac', team: 'front' } })
    const read = await api.call('GET', `/v1/agents/${made.body.id}`)
    const patched = await api.call('PATCH', `/v1/agents/${made.body.id}`, {
      metadata: { crmId: '1', CRMID: '2' },
    })
    return [made.status, made.body.metadata, read.body.metadata, patched.body.metadata]
  },

  async 'item-ids-matched-case-insensitively'(api) {
    await freshKey(api)
    const agent = await api.agent('a')
    const member = (await invite(api, 'kim@live.test')).body.id
    const exact = await api.call('GET', `/v1/agents/${agent}`)
    const agentRead = await api.call('GET', `/v1/agents/${swapCase(agent)}`)
    const memberRead = await api.call('GET', `/v1/team-members/${swapCase(member)}`)
    const cursor = await api.call('GET', `/v1/agents?starting_after=${swapCase(agent)}`)
    return [exact.status, status(agentRead), status(memberRead), status(cursor)]
  },

  // ----------------------------------------------------------------------------------------------- width
  async 'agent-name-cut-at-100-bytes'(api) {
    await freshKey(api)
    const name = 'Администратор стоматологической клиники «Улыбка» на Невском проспекте'
    const made = await created(api, name)
    const read = await api.call('GET', `/v1/agents/${made.body.id}`)
    const ascii = await created(api, 'x'.repeat(100))
    return [
      made.status,
      [...name].length,
      [...made.body.name].length,
      read.body.name === name,
      [...ascii.body.name].length,
    ]
  },

  async 'idempotency-body-compared-in-64k-column'(api) {
    await freshKey(api)
    const body = (last: string) =>
      agentBody('long', {
        system_prompt: 'Ж'.repeat(20_000),
        metadata: Object.fromEntries(
          Array.from({ length: 40 }, (_, i) => [
            `k${i}`,
            i === 39 ? `${'ж'.repeat(499)}${last}` : 'ж'.repeat(500),
          ]),
        ),
      })
    const key = { 'idempotency-key': 'long-import-1' }
    const first = await api.call('POST', '/v1/agents', body('a'), { headers: key })
    const retry = await api.call('POST', '/v1/agents', body('a'), { headers: key })
    const other = await api.call('POST', '/v1/agents', body('b'), { headers: key })
    return {
      first: first.status,
      retry: [retry.status, retry.headers['idempotent-replayed'] ?? null],
      other: [...status(other), other.headers['idempotent-replayed'] ?? null],
    }
  },

  // ------------------------------------------------------------------------------------------- precision
  async 'invitation-times-rounded-to-minute'(api) {
    await freshKey(api)
    await api.advance(40)
    const late = await invite(api, 'kim@live.test')
    await api.advance(50)
    const later = await invite(api, 'lee@live.test')
    const read = await api.call('GET', `/v1/team-members/${late.body.id}`)
    const list = await api.call('GET', '/v1/team-members')
    return {
      late: [late.body.created_at, late.body.invited_at, read.body.created_at],
      later: later.body.created_at,
      listed: (list.body.data as { email: string; created_at: string }[])
        .filter((m) => m.email.endsWith('@live.test'))
        .map((m) => [m.email, m.created_at]),
    }
  },

  // -------------------------------------------------------------------------------------------- decimals
  async 'llm-temperature-in-decimal-2-1'(api) {
    await freshKey(api)
    const made = await created(api, 'warm', {
      llm: { provider: 'openai', model: 'gpt-4o', temperature: 0.75 },
    })
    const patched = await api.call('PATCH', `/v1/agents/${made.body.id}`, { llm: { temperature: 1.35 } })
    const read = await api.call('GET', `/v1/agents/${made.body.id}`)
    return [made.body.llm.temperature, patched.body.llm.temperature, read.body.llm.temperature]
  },

  async 'group-success-rate-two-decimals'(api) {
    api.use(api.demoKey())
    const grouped = await analytics(api, 'group_by=agent_id&granularity=total')
    return {
      totals: grouped.body.totals.success_rate,
      groups: grouped.body.groups.map(
        (group: { totals: { success_rate: number } }) => group.totals.success_rate,
      ),
    }
  },

  async 'group-cost-totals-summed-in-floating-point'(api) {
    api.use(api.demoKey())
    const grouped = await analytics(api, 'group_by=agent_id')
    const costs = grouped.body.groups.map(
      (group: { totals: { total_cost_usd: number } }) => group.totals.total_cost_usd,
    )
    return {
      four_decimals: costs.map((cost: number) => decimals(cost, 4)),
      totals: decimals(grouped.body.totals.total_cost_usd, 4),
    }
  },

  // ---------------------------------------------------------------------------------------------- typing
  async 'config-values-read-back-as-text'(api) {
    await freshKey(api)
    const config = { url: 'https://hooks.live.test/voice', timeout_seconds: 10, verify_tls: true }
    const patched = await api.call('PATCH', '/v1/integrations/webhook', { config })
    const read = await api.call('GET', '/v1/integrations/webhook')
    const list = await api.call('GET', '/v1/integrations')
    const listed = list.body.data.find((i: { id: string }) => i.id === 'webhook')
    return [patched.body.config, read.body.config, listed.config]
  },

  async 'enterprise-plan-outside-enum-stored-empty'(api) {
    await freshKey(api, { plan: 'enterprise' })
    const enterprise = await api.call('GET', '/v1/user')
    await freshKey(api, { plan: 'free' })
    const free = await api.call('GET', '/v1/user')
    return [enterprise.body.plan, free.body.plan]
  },

  async 'webhook-events-in-set-column-order'(api) {
    await freshKey(api)
    const made = await created(api, 'hooked', {
      webhook_url: 'https://hooks.live.test/events',
      webhook_events: ['transcript.ready', 'call.ended'],
    })
    const read = await api.call('GET', `/v1/agents/${made.body.id}`)
    const patched = await api.call('PATCH', `/v1/agents/${made.body.id}`, {
      webhook_events: ['call.analyzed', 'call.started'],
    })
    return [made.body.webhook_events, read.body.webhook_events, patched.body.webhook_events]
  },

  async 'live-call-empty-metadata-as-array'(api) {
    const account = await freshKey(api)
    const call = await api.startCall(account, await api.agent('a'))
    await api.advance(70)
    const read = await api.call('GET', `/v1/call-logs/${call}`)
    const list = await api.call('GET', '/v1/call-logs')
    return [read.body.metadata, list.body.data[0].metadata]
  },

  // ----------------------------------------------------------------------------------------------- nulls
  async 'emptied-metadata-read-back-null'(api) {
    await freshKey(api)
    const made = await created(api, 'tagged', { metadata: { crm: 'x1' } })
    const emptied = await api.call('PATCH', `/v1/agents/${made.body.id}`, { metadata: {} })
    const read = await api.call('GET', `/v1/agents/${made.body.id}`)
    const list = await api.call('GET', '/v1/agents')
    return [emptied.status, emptied.body.metadata, read.body.metadata, list.body.data[0].metadata]
  },

  async 'replayed-empty-strings-become-null'(api) {
    await freshKey(api)
    const key = { 'idempotency-key': 'create-quiet-1' }
    const body = agentBody('quiet', { first_message: '' })
    const first = await api.call('POST', '/v1/agents', body, { headers: key })
    const replay = await api.call('POST', '/v1/agents', body, { headers: key })
    return [
      [first.body.system_prompt, first.body.first_message],
      [replay.status, replay.headers['idempotent-replayed'] ?? null],
      [replay.body.system_prompt, replay.body.first_message],
    ]
  },

  // ----------------------------------------------------------------------------------------- soft delete
  async 'deleted-call-log-readable-by-id'(api) {
    const account = await freshKey(api)
    const call = await completedCall(api, account, await api.agent('a'))
    const before = await api.call('GET', `/v1/call-logs/${call}`)
    const removed = await api.call('DELETE', `/v1/call-logs/${call}`)
    const after = await api.call('GET', `/v1/call-logs/${call}`)
    const again = await api.call('DELETE', `/v1/call-logs/${call}`)
    const list = await api.call('GET', '/v1/call-logs')
    return [before.status, removed.status, status(after), status(again), ids(list).includes(call)]
  },

  async 'reinvite-revives-removed-member'(api) {
    await freshKey(api)
    const first = await invite(api, 'kim@live.test')
    await api.advance(10)
    await api.call('DELETE', `/v1/team-members/${first.body.id}`)
    const gone = await api.call('GET', `/v1/team-members/${first.body.id}`)
    await api.advance(20)
    const again = await invite(api, 'kim@live.test')
    const old = await api.call('GET', `/v1/team-members/${first.body.id}`)
    return {
      gone: status(gone),
      again: [
        again.status,
        again.body.id === first.body.id,
        seconds(first.body.created_at, again.body.created_at),
      ],
      old: status(old),
    }
  },

  // -------------------------------------------------------------------------------------------- sequence
  async 'newest-agent-id-reused-after-delete'(api) {
    await freshKey(api)
    await api.agent('a')
    const b = await api.agent('b')
    await api.call('DELETE', `/v1/agents/${b}`)
    const gone = await api.call('GET', `/v1/agents/${b}`)
    const c = await created(api, 'c')
    const old = await api.call('GET', `/v1/agents/${b}`)
    return {
      gone: status(gone),
      c: [c.status, c.body.id === b, (c.headers.location ?? '').endsWith(b)],
      old: [old.status, old.body?.name ?? null],
    }
  },

  // --------------------------------------------------------------------------------------------- replica
  async 'duplicate-invite-same-second-on-replica'(api) {
    await freshKey(api)
    const first = await invite(api, 'lee@live.test')
    const second = await invite(api, 'lee@live.test', { 'idempotency-key': 'retry-lee-2' })
    const replay = await invite(api, 'lee@live.test', { 'idempotency-key': 'retry-lee-2' })
    await api.advance(1)
    const third = await invite(api, 'Lee@live.test')
    const list = await api.call('GET', '/v1/team-members')
    const lees = (list.body.data as { email: string }[]).filter((m) => m.email === 'lee@live.test').length
    return [
      first.status,
      status(second),
      [replay.status, replay.headers['idempotent-replayed'] ?? null],
      status(third),
      lees,
    ]
  },

  async 'fresh-cursor-unknown-on-replica'(api) {
    await freshKey(api)
    const older = await api.agent('older')
    await api.advance(5)
    const fresh = await api.agent('fresh')
    const now = await api.call('GET', `/v1/agents?starting_after=${fresh}`)
    const back = await api.call('GET', `/v1/agents?ending_before=${older}`)
    await api.advance(1)
    const later = await api.call('GET', `/v1/agents?starting_after=${fresh}`)
    return [
      [...status(now), ids(now).length],
      [...status(back), ids(back).length],
      [...status(later), ids(later).length],
    ]
  },

  async 'idempotency-lookup-on-replica'(api) {
    await freshKey(api)
    const key = { 'idempotency-key': 'create-front-desk' }
    const first = await api.call('POST', '/v1/agents', agentBody('front desk'), { headers: key })
    const retry = await api.call('POST', '/v1/agents', agentBody('front desk'), { headers: key })
    await api.advance(1)
    const later = await api.call('POST', '/v1/agents', agentBody('front desk'), { headers: key })
    const agents = await api.call('GET', '/v1/agents')
    return {
      retry: [retry.status, retry.headers['idempotent-replayed'] ?? null, retry.body.id === first.body.id],
      later: [later.status, later.headers['idempotent-replayed'] ?? null, later.body.id === first.body.id],
      agents: ids(agents).length,
    }
  },

  // ----------------------------------------------------------------------------------------------- cache
  async 'removed-member-served-from-object-cache'(api) {
    await freshKey(api)
    const member = (await invite(api, 'kim@live.test')).body.id
    await api.call('GET', `/v1/team-members/${member}`)
    await api.advance(30)
    const removed = await api.call('DELETE', `/v1/team-members/${member}`)
    const read = await api.call('GET', `/v1/team-members/${member}`)
    const patch = await api.call('PATCH', `/v1/team-members/${member}`, { role: 'editor' })
    await api.advance(400)
    const expired = await api.call('GET', `/v1/team-members/${member}`)
    return [removed.status, status(read), status(patch), status(expired)]
  },

  // -------------------------------------------------------------------------------------------- defaults
  async 'noop-integration-patch-keeps-updated-at'(api) {
    await freshKey(api)
    const before = await api.call('GET', '/v1/integrations/slack')
    await api.advance(30)
    const same = await api.call('PATCH', '/v1/integrations/slack', { enabled: false })
    const read = await api.call('GET', '/v1/integrations/slack')
    await api.advance(30)
    const changed = await api.call('PATCH', '/v1/integrations/slack', { enabled: true })
    return [
      seconds(before.body.updated_at, same.body.updated_at),
      seconds(before.body.updated_at, read.body.updated_at),
      seconds(before.body.updated_at, changed.body.updated_at),
    ]
  },

  async 'first-integration-write-inserts-column-defaults'(api) {
    await freshKey(api)
    const first = await api.call('PATCH', '/v1/integrations/slack', { config: { channel: '#calls' } })
    const read = await api.call('GET', '/v1/integrations/slack')
    const off = await api.call('PATCH', '/v1/integrations/slack', { enabled: false })
    const second = await api.call('PATCH', '/v1/integrations/slack', { config: { channel: '#alerts' } })
    return [first.body.enabled, read.body.enabled, off.body.enabled, second.body.enabled]
  },

  // ---------------------------------------------------------------------------------------- denormalised
  async 'call-duration-from-answer-time'(api) {
    const account = await freshKey(api)
    const call = await completedCall(api, account, await api.agent('a'))
    const read = await api.call('GET', `/v1/call-logs/${call}`)
    const filtered = await api.call('GET', '/v1/call-logs?min_duration_seconds=62')
    return [
      read.body.status,
      read.body.duration_seconds,
      seconds(read.body.started_at, read.body.ended_at),
      ids(filtered).includes(call),
    ]
  },

  // ----------------------------------------------------------------------------------------------- queue
  async 'queued-calls-missing-from-agent-index'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    const older = await completedCall(api, account, agent)
    const queued = await api.startCall(account, agent)
    const byAgent = await api.call('GET', `/v1/call-logs?agent_id=${agent}&limit=1`)
    const all = await api.call('GET', '/v1/call-logs?limit=1')
    await api.advance(1)
    const later = await api.call('GET', `/v1/call-logs?agent_id=${agent}&limit=1`)
    const label = (answer: Answer) =>
      ids(answer).map((id) => (id === queued ? 'queued' : id === older ? 'older' : '?'))
    return [label(byAgent), byAgent.body.has_more, label(all), label(later)]
  },

  async 'call-end-job-redelivered-wipes-analysis'(api) {
    const account = await freshKey(api)
    const recorded = await api.agent('recorded', { recording_enabled: true })
    const plain = await api.agent('plain')
    const first = await api.startCall(account, recorded)
    const second = await api.startCall(account, plain)
    await api.advance(70)
    await api.advance(130)
    const analysed = await api.call('GET', `/v1/call-logs/${first}`)
    await api.advance(300)
    const later = await api.call('GET', `/v1/call-logs/${first}`)
    const unrecorded = await api.call('GET', `/v1/call-logs/${second}`)
    return [analysed.body.analysis !== null, later.body.analysis !== null, unrecorded.body.analysis !== null]
  },

  // ----------------------------------------------------------------------------------------------- clock
  async 'week-month-buckets-zone-fixed-at-start'(api) {
    await freshKey(api)
    const range = 'start=2025-03-01T00:00:00%2B01:00&end=2025-05-01T00:00:00%2B02:00&timezone=Europe/Berlin'
    const months = await analytics(api, `${range}&granularity=month`)
    const weeks = await analytics(api, `${range}&granularity=week`)
    return {
      months: [months.body.timezone, months.body.series.map((bucket: { end: string }) => bucket.end)],
      week_after_change: weeks.body.series[5]?.start ?? null,
    }
  },

  async 'x-ratelimit-reset-from-connection-clock'(api) {
    await freshKey(api)
    const first = await api.call('GET', '/v1/user')
    await api.advance(100)
    const later = await api.call('GET', '/v1/user')
    return [
      Number(first.headers['x-ratelimit-reset']) - Date.parse(at(0)) / 1000,
      Number(later.headers['x-ratelimit-reset']) - Date.parse(at(100)) / 1000,
      later.headers.ratelimit,
    ]
  },

  // -------------------------------------------------------------------------------------------- counters
  async 'refused-requests-counted'(api) {
    await freshKey(api, { plan: 'free', limits: { hourly: 100, burst: 2 } })
    const seen: unknown[] = []
    const send = async () => {
      const answer = await api.call('GET', '/v1/user')
      seen.push([answer.status, answer.headers.ratelimit, answer.headers['retry-after'] ?? null])
    }
    await send()
    await api.advance(10)
    await send()
    await api.advance(10)
    await send()
    await api.advance(40)
    await send()
    await api.advance(60)
    await send()
    return seen
  },
}

await showLive(faults, scenarios)

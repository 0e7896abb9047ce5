/**
 * Shows that every fault of held-out fault set 9 is live: for each one, a short scenario of several steps (accounts
 * and keys provisioned through the control plane, then v1 requests sent as a client over HTTP sends them, the mock
 * clock moved where time matters) is run against a fresh correct engine, again against another fresh correct engine
 * (the scenario must observe the same thing twice: nothing random leaks into it), and against a fresh engine wrapped
 * in the fault. A fault is LIVE when its observation differs from the correct one. Ordinary traffic (the first reads
 * of every endpoint, a create and a read) is also run through each fault, which should leave it unchanged. The
 * engines' clocks are frozen at one instant and move only when a scenario advances them, so that every run sees the
 * same times (`node --import tsx scripts/fault-sets/held-out-9-live.ts`).
 */
import { faults } from '../../test/fault-sets/held-out-9.ts'
import {
  type Answer,
  type Api,
  at,
  errorCode,
  HOUR,
  labelled,
  names,
  revoke,
  seconds,
  showLive,
} from './live-harness.ts'

// -------------------------------------------------------------------------------------------- helpers

const DAY = 24 * HOUR

/** A POST of an agent named `name` with `Idempotency-Key: key` (and another key value, when given). */
const createWithKey = (api: Api, name: string, key: string, token?: string) =>
  api.call(
    'POST',
    '/v1/agents',
    {
      name,
      voice: { provider: 'openai', voice_id: 'alloy' },
      llm: { provider: 'openai', model: 'gpt-4o-mini' },
    },
    { headers: { 'idempotency-key': key }, ...(token ? { key: token } : {}) },
  )

/** What a retry shows: its status, whether it was a replay, and whether it answered the first object. */
const retryOf = (first: Answer, retry: Answer) => ({
  status: retry.status,
  replayed: retry.headers['idempotent-replayed'] ?? null,
  same: retry.body?.id === first.body?.id,
})

const changePlan = async (api: Api, account: string, plan: string) => {
  const changed = await api.call('PATCH', `/_mock/accounts/${account}`, { plan }, { key: '' })
  if (changed.status !== 200) throw new Error(`plan: ${changed.status} ${JSON.stringify(changed.body)}`)
}

const window = (answer: Answer, policy: string) =>
  new RegExp(`"${policy}";r=(\\d+)`).exec(answer.headers.ratelimit ?? '')?.[1] ?? null

/** An account with a key (the session's key), an agent and a simulated call of it; their ids. */
async function withCall(api: Api, call: Record<string, unknown> = {}) {
  const account = await api.account()
  await api.key(account)
  const agent = await api.agent('a')
  const id = await api.startCall(account, agent, call)
  return { account, agent, id }
}

// -------------------------------------------------------------------------------------------- scenarios

const scenarios: Record<string, (api: Api) => Promise<unknown>> = {
  async 'call-log-cursor-resolved-to-offset'(api) {
    const account = await api.account()
    await api.key(account)
    const agent = await api.agent('a')
    const labels: Record<string, string> = {}
    for (const label of ['c1', 'c2', 'c3']) {
      labels[await api.startCall(account, agent)] = label
      await api.advance(1)
    }
    const first = await api.call('GET', '/v1/call-logs?limit=2')
    labels[await api.startCall(account, agent)] = 'c4'
    await api.advance(1)
    const cursor = first.body.data[1].id
    const next = await api.call('GET', `/v1/call-logs?limit=2&starting_after=${cursor}`)
    return { first: labelled(first, labels), next: labelled(next, labels), has_more: next.body.has_more }
  },

  async 'team-has-more-from-cached-count'(api) {
    await api.key(await api.account())
    const before = await api.call('GET', '/v1/team-members')
    await api.call('POST', '/v1/team-members', { email: 'ana@live.test' })
    await api.advance(1)
    await api.call('POST', '/v1/team-members', { email: 'bo@live.test' })
    const page = await api.call('GET', '/v1/team-members?limit=1')
    return {
      before: [before.body.data.length, before.body.has_more],
      page: [page.body.data.length, page.body.has_more],
    }
  },

  async 'idempotency-records-dropped-at-utc-midnight'(api) {
    await api.key(await api.account())
    await api.advance(11 * HOUR + 55 * 60)
    const first = await createWithKey(api, 'late', 'order-2355')
    await api.advance(600)
    const retry = await createWithKey(api, 'late', 'order-2355')
    const list = await api.call('GET', '/v1/agents')
    return { first: first.status, retry: retryOf(first, retry), agents: names(list) }
  },

  async 'idempotency-keyed-per-api-key'(api) {
    const account = await api.account()
    await api.key(account)
    const first = await createWithKey(api, 'rotated', 'retry-me')
    await api.key(account)
    const retry = await createWithKey(api, 'rotated', 'retry-me')
    const other = await createWithKey(api, 'other-body', 'retry-me')
    const list = await api.call('GET', '/v1/agents')
    return { retry: retryOf(first, retry), other: [other.status, errorCode(other)], agents: names(list) }
  },

  async 'idempotency-store-keeps-last-five-keys'(api) {
    await api.key(await api.account())
    const first = await createWithKey(api, 'k1', 'key-1')
    for (let i = 2; i <= 6; i++) await createWithKey(api, `k${i}`, `key-${i}`)
    const retry = await createWithKey(api, 'k1', 'key-1')
    const list = await api.call('GET', '/v1/agents?limit=100')
    return { retry: retryOf(first, retry), agents: list.body.data.length }
  },

  async 'idempotency-conflict-releases-key'(api) {
    await api.key(await api.account())
    const first = await createWithKey(api, 'a', 'shared-key')
    const conflict = await createWithKey(api, 'b', 'shared-key')
    const retry = await createWithKey(api, 'a', 'shared-key')
    const list = await api.call('GET', '/v1/agents')
    return {
      conflict: [conflict.status, errorCode(conflict)],
      retry: retryOf(first, retry),
      agents: names(list),
    }
  },

  async 'replay-served-to-revoked-key'(api) {
    const account = await api.account()
    const doomed = await api.keyRecord(account)
    const first = await createWithKey(api, 'a', 'before-revoke', doomed.value)
    await revoke(api, doomed.id)
    const retry = await createWithKey(api, 'a', 'before-revoke', doomed.value)
    return { first: first.status, retry: [retry.status, errorCode(retry)] }
  },

  async 'agent-list-cache-shared-by-key-types'(api) {
    const account = await api.account()
    await api.key(account)
    await api.agent('a', { system_prompt: 'internal prompt', metadata: { tier: 'gold' } })
    const secret = await api.call('GET', '/v1/agents')
    const publishable = await api.keyRecord(account, { type: 'publishable', name: 'web' })
    const shown = await api.call('GET', '/v1/agents', undefined, { key: publishable.value })
    return {
      secret: 'system_prompt' in secret.body.data[0],
      publishable: [shown.status, 'system_prompt' in shown.body.data[0], 'metadata' in shown.body.data[0]],
    }
  },

  async 'agent-cache-keyed-by-id-only'(api) {
    await api.key(await api.account())
    const agent = await api.agent('theirs')
    const own = await api.call('GET', `/v1/agents/${agent}`)
    await api.key(await api.account())
    const foreign = await api.call('GET', `/v1/agents/${agent}`)
    return { own: own.status, foreign: [foreign.status, errorCode(foreign)] }
  },

  async 'user-cached-after-plan-change'(api) {
    const account = await api.account({ plan: 'free' })
    await api.key(account)
    const before = await api.call('GET', '/v1/user')
    await changePlan(api, account, 'pro')
    await api.advance(5)
    const after = await api.call('GET', '/v1/user')
    return { before: before.body.plan, after: after.body.plan }
  },

  async 'plan-quotas-cached-for-an-hour'(api) {
    const account = await api.account({ plan: 'free' })
    await api.key(account)
    for (let i = 0; i < 10; i++) await api.call('GET', '/v1/user')
    await changePlan(api, account, 'pro')
    await api.advance(1)
    const next = await api.call('GET', '/v1/agents')
    return { status: next.status, policy: next.headers['ratelimit-policy'] ?? null, code: errorCode(next) }
  },

  async 'hourly-counter-expiry-renewed-by-each-request'(api) {
    await api.key(await api.account({ plan: 'free', limits: { hourly: 10, burst: 10 } }))
    for (let i = 0; i < 6; i++) await api.call('GET', '/v1/user')
    await api.advance(2400)
    await api.call('GET', '/v1/user')
    await api.advance(1500)
    const later: unknown[] = []
    for (let i = 0; i < 4; i++) {
      const answer = await api.call('GET', '/v1/user')
      later.push([answer.status, window(answer, 'hourly')])
    }
    return later
  },

  async 'burst-429-starts-a-penalty-minute'(api) {
    await api.key(await api.account({ plan: 'free' }))
    for (let i = 0; i < 10; i++) {
      await api.call('GET', '/v1/user')
      await api.advance(3)
    }
    const refused = await api.call('GET', '/v1/user')
    // The oldest counted request leaves the burst window 30 s later: a retry 31 s on is admitted.
    await api.advance(31)
    const retry = await api.call('GET', '/v1/user')
    return {
      refused: [refused.status, refused.headers['retry-after'] ?? null],
      retry: [retry.status, errorCode(retry)],
    }
  },

  async 'head-of-deleted-call-log-from-cache'(api) {
    const { id } = await withCall(api, { duration_seconds: 10 })
    await api.advance(100)
    const read = await api.call('GET', `/v1/call-logs/${id}`)
    const removed = await api.call('DELETE', `/v1/call-logs/${id}`)
    const head = await api.call('HEAD', `/v1/call-logs/${id}`)
    const get = await api.call('GET', `/v1/call-logs/${id}`)
    return { read: read.status, removed: removed.status, head: head.status, get: get.status }
  },

  async 'preflight-of-deleted-object-404'(api) {
    await api.key(await api.account())
    const agent = await api.agent('short-lived')
    const preflight = () =>
      api.call('OPTIONS', `/v1/agents/${agent}`, undefined, {
        key: '',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'DELETE' },
      })
    const before = await preflight()
    await api.call('DELETE', `/v1/agents/${agent}`)
    const after = await preflight()
    return { before: before.status, after: [after.status, errorCode(after)] }
  },

  async 'deleted-live-call-returns-when-it-ends'(api) {
    const { id } = await withCall(api, { duration_seconds: 30 })
    await api.advance(10)
    const live = await api.call('GET', `/v1/call-logs/${id}`)
    const removed = await api.call('DELETE', `/v1/call-logs/${id}`)
    const gone = await api.call('GET', `/v1/call-logs/${id}`)
    await api.advance(120)
    const later = await api.call('GET', `/v1/call-logs/${id}`)
    const list = await api.call('GET', '/v1/call-logs')
    return {
      live: live.body.status,
      removed: removed.status,
      gone: gone.status,
      later: [later.status, later.body.status ?? null],
      listed: list.body.data.length,
    }
  },

  async 'deleted-call-logs-still-in-analytics'(api) {
    const { id } = await withCall(api, { duration_seconds: 20 })
    await api.advance(200)
    const before = await api.call('GET', '/v1/analytics/calls')
    const removed = await api.call('DELETE', `/v1/call-logs/${id}`)
    const after = await api.call('GET', '/v1/analytics/calls')
    const read = await api.call('GET', `/v1/call-logs/${id}`)
    return {
      before: before.body.totals.call_count,
      removed: removed.status,
      after: after.body.totals.call_count,
      read: read.status,
    }
  },

  async 'call-log-cached-while-under-way'(api) {
    const { id } = await withCall(api, { duration_seconds: 20 })
    await api.advance(2)
    const ringing = await api.call('GET', `/v1/call-logs/${id}`)
    await api.advance(60)
    const ended = await api.call('GET', `/v1/call-logs/${id}`)
    return { first: ringing.body.status, later: [ended.body.status, ended.body.ended_at !== null] }
  },

  async 'status-filter-reads-status-at-creation'(api) {
    const { id } = await withCall(api, { duration_seconds: 10 })
    await api.advance(100)
    const completed = await api.call('GET', '/v1/call-logs?status=completed')
    const queued = await api.call('GET', '/v1/call-logs?status=queued')
    const labels = { [id]: 'call' }
    return { completed: labelled(completed, labels), queued: labelled(queued, labels) }
  },

  async 'listed-calls-miss-late-analysis'(api) {
    const { id } = await withCall(api, { duration_seconds: 30 })
    await api.advance(300)
    const list = await api.call('GET', '/v1/call-logs')
    const read = await api.call('GET', `/v1/call-logs/${id}`)
    return { listed: list.body.data[0].analysis !== null, read: read.body.analysis !== null }
  },

  async 'closed-analytics-buckets-frozen'(api) {
    const account = await api.account()
    await api.key(account)
    const agent = await api.agent('a')
    await api.advance(HOUR - 30)
    await api.startCall(account, agent, { duration_seconds: 60 })
    await api.advance(40)
    const query = `/v1/analytics/calls?granularity=hour&start=${at(0)}`
    const early = await api.call('GET', query)
    await api.advance(300)
    const late = await api.call('GET', query)
    const completed = (answer: Answer) => [
      answer.body.series[0].metrics.completed_count,
      answer.body.totals.completed_count,
    ]
    return { early: completed(early), late: completed(late) }
  },

  async 'month-buckets-step-30-days'(api) {
    await api.key(await api.account())
    const stats = await api.call(
      'GET',
      '/v1/analytics/calls?granularity=month&start=2025-12-01T00:00:00Z&end=2026-03-01T00:00:00Z',
    )
    return {
      status: stats.status,
      granularity: stats.body.granularity,
      starts: stats.body.series.map((bucket: { start: string }) => bucket.start),
    }
  },

  async 'hour-buckets-keyed-by-local-hour'(api) {
    await api.key(await api.account())
    await api.advance(236 * DAY)
    const stats = await api.call(
      'GET',
      '/v1/analytics/calls?granularity=hour&timezone=Europe/Berlin&start=2026-10-24T22:00:00Z&end=2026-10-25T04:00:00Z',
    )
    return {
      status: stats.status,
      buckets: stats.body.series.map((bucket: { start: string; end: string }) =>
        seconds(bucket.start, bucket.end),
      ),
    }
  },

  async 'analytics-default-end-fixed-at-first-use'(api) {
    const account = await api.account()
    await api.key(account)
    const first = await api.call('GET', '/v1/analytics/calls')
    await api.advance(60)
    await api.startCall(account, await api.agent('a'), { duration_seconds: 10 })
    await api.advance(100)
    const later = await api.call('GET', '/v1/analytics/calls')
    return {
      first: seconds(at(0), first.body.end),
      later: [seconds(at(0), later.body.end), later.body.totals.call_count],
    }
  },

  async 'rejected-agent-patch-partly-applied'(api) {
    await api.key(await api.account())
    const agent = await api.agent('original')
    const refused = await api.call('PATCH', `/v1/agents/${agent}`, {
      name: 'renamed',
      max_call_duration_seconds: 5,
    })
    const read = await api.call('GET', `/v1/agents/${agent}`)
    return { refused: [refused.status, errorCode(refused)], name: read.body.name }
  },

  async 'enabling-integration-resets-config'(api) {
    await api.key(await api.account())
    await api.call('PATCH', '/v1/integrations/slack', { config: { channel: '#ops' } })
    const enabled = await api.call('PATCH', '/v1/integrations/slack', { enabled: true })
    const read = await api.call('GET', '/v1/integrations/slack')
    return { enabled: [enabled.body.enabled, enabled.body.config], read: read.body.config }
  },

  async 'config-only-patch-keeps-updated-at'(api) {
    await api.key(await api.account())
    await api.call('PATCH', '/v1/integrations/slack', { credentials: { bot_token: 'xoxb-live-12345678' } })
    await api.advance(100)
    const patched = await api.call('PATCH', '/v1/integrations/slack', { config: { channel: '#x' } })
    const read = await api.call('GET', '/v1/integrations/slack')
    return { patched: seconds(at(0), patched.body.updated_at), read: seconds(at(0), read.body.updated_at) }
  },

  async 'failing-integration-stays-error-on-new-credentials'(api) {
    api.use(api.demoKey())
    const before = await api.call('GET', '/v1/integrations/salesforce')
    const patched = await api.call('PATCH', '/v1/integrations/salesforce', {
      credentials: { api_key: 'sf-live-key-12345678' },
    })
    const read = await api.call('GET', '/v1/integrations/salesforce')
    return { before: before.body.status, patched: patched.body.status, read: read.body.status }
  },

  async 'role-change-resends-invitation'(api) {
    await api.key(await api.account())
    const invited = await api.call('POST', '/v1/team-members', { email: 'lee@live.test' })
    await api.advance(100)
    const changed = await api.call('PATCH', `/v1/team-members/${invited.body.id}`, { role: 'editor' })
    const read = await api.call('GET', `/v1/team-members/${invited.body.id}`)
    return {
      changed: [changed.body.role, seconds(at(0), changed.body.invited_at)],
      read: seconds(at(0), read.body.invited_at),
    }
  },

  async 'member-limit-counts-removed-members'(api) {
    await api.key(await api.account({ plan: 'enterprise', limits: { hourly: 100000, burst: 100000 } }))
    let last: Answer | undefined
    for (let i = 0; i < 199; i++)
      last = await api.call('POST', '/v1/team-members', { email: `m${i}@live.test` })
    const full = await api.call('POST', '/v1/team-members', { email: 'one-more@live.test' })
    await api.call('DELETE', `/v1/team-members/${last?.body.id}`)
    const after = await api.call('POST', '/v1/team-members', { email: 'one-more@live.test' })
    return { full: [full.status, errorCode(full)], after: [after.status, errorCode(after)] }
  },
}

await showLive(faults, scenarios)

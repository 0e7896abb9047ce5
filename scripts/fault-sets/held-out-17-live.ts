/**
 * Shows that every fault of held-out fault set 17 is live: for each one, a short scenario (accounts and keys
 * provisioned through the control plane, simulated calls started there, then v1 requests sent as a client sends them,
 * several of them in flight together where the fault needs it, and the reads that show what was kept) is run against
 * a fresh correct engine, again against another fresh correct engine (the scenario must observe the same thing twice:
 * nothing random leaks into it), and against a fresh engine wrapped in the fault. A fault is LIVE when its observation
 * differs from the correct one. Ordinary traffic (the first reads of every endpoint, a create and a read, one request
 * at a time) is also run through each fault, which should leave it unchanged. Requests sent together with
 * `Promise.all` are in flight together in the wrapper: each one's `request` hook runs before any of their `response`
 * hooks. The engines' clocks are frozen at one instant and move only when a scenario advances them, so that every run
 * sees the same times (`npx tsx scripts/fault-sets/held-out-17-live.ts`).
 */
import { faults } from '../../test/fault-sets/held-out-17.ts'
import {
  type Answer,
  type Api,
  agentBody,
  agentsApart,
  completedCall,
  freshKey,
  names,
  seconds,
  showLive,
  status,
} from './live-harness.ts'

// -------------------------------------------------------------------------------------------- helpers

const post = (api: Api, path: string, body: unknown, headers: Record<string, string> = {}) =>
  api.call('POST', path, body, { headers })

const invite = (api: Api, email: string, headers: Record<string, string> = {}) =>
  post(api, '/v1/team-members', { email }, headers)

const emails = (answer: Answer): string[] =>
  (answer.body?.data ?? []).map((member: { email: string }) => member.email)
/** The invited addresses a list shows, sorted (members of one second are ordered by their random IDs). */
const invited = (answer: Answer) =>
  emails(answer)
    .filter((email) => email.endsWith('@live.test'))
    .sort()

// -------------------------------------------------------------------------------------------- scenarios

const scenarios: Record<string, (api: Api) => Promise<unknown>> = {
  // ----------------------------------------------------------------------------------------- idempotency
  async 'idempotent-creates-in-flight-both-carried-out'(api) {
    await freshKey(api)
    const key = { 'idempotency-key': 'submit-1' }
    const [first, second] = await Promise.all([
      post(api, '/v1/agents', agentBody('a'), key),
      post(api, '/v1/agents', agentBody('a'), key),
    ])
    const list = await api.call('GET', '/v1/agents')
    return [
      first.status,
      second.status,
      second.headers['idempotent-replayed'] ?? null,
      first.body.id === second.body.id,
      names(list),
    ]
  },

  async 'idempotency-record-saved-under-concurrent-key'(api) {
    await freshKey(api)
    const one = { 'idempotency-key': 'one' }
    const two = { 'idempotency-key': 'two' }
    const [a, b] = await Promise.all([
      post(api, '/v1/agents', agentBody('a'), one),
      post(api, '/v1/agents', agentBody('b'), two),
    ])
    const retryA = await post(api, '/v1/agents', agentBody('a'), one)
    const retryB = await post(api, '/v1/agents', agentBody('b'), two)
    const list = await api.call('GET', '/v1/agents')
    return {
      first: [a.status, b.status],
      retryA: [
        ...status(retryA),
        retryA.headers['idempotent-replayed'] ?? null,
        retryA.body.id === a.body.id,
      ],
      retryB: [
        ...status(retryB),
        retryB.headers['idempotent-replayed'] ?? null,
        retryB.body?.id === b.body.id,
      ],
      agents: names(list).sort(),
    }
  },

  async 'key-left-locked-after-server-error'(api) {
    const account = await freshKey(api)
    const scenario = await api.call(
      'POST',
      '/_mock/scenarios',
      { operation: 'createAgent', account_id: account, status: 500, times: 1 },
      { key: '' },
    )
    const key = { 'idempotency-key': 'create-after-crash' }
    const failed = await post(api, '/v1/agents', agentBody('a'), key)
    const retry = await post(api, '/v1/agents', agentBody('a'), key)
    const other = await post(api, '/v1/agents', agentBody('b'), { 'idempotency-key': 'fresh' })
    const list = await api.call('GET', '/v1/agents')
    return [scenario.status, failed.status, status(retry), other.status, names(list).sort()]
  },

  // ------------------------------------------------------------------------------------------ rate limit
  async 'third-concurrent-request-loses-limiter-cas'(api) {
    await freshKey(api, { plan: 'free', limits: { hourly: 100, burst: 10 } })
    await api.call('GET', '/v1/user')
    const two = await Promise.all([api.call('GET', '/v1/user'), api.call('GET', '/v1/agents')])
    const three = await Promise.all([
      api.call('GET', '/v1/user'),
      api.call('GET', '/v1/agents'),
      api.call('GET', '/v1/team-members'),
    ])
    return [
      two.map((answer) => answer.status),
      three.map((answer) => [...status(answer), answer.headers.ratelimit]),
    ]
  },

  async 'ratelimit-remaining-read-before-concurrent-increments'(api) {
    await freshKey(api, { plan: 'free', limits: { hourly: 100, burst: 10 } })
    await api.call('GET', '/v1/user')
    const burst = await Promise.all([
      api.call('GET', '/v1/user'),
      api.call('GET', '/v1/agents'),
      api.call('GET', '/v1/integrations'),
    ])
    return burst.map((answer) => [answer.headers.ratelimit, answer.headers['x-ratelimit-remaining']])
  },

  async 'route-errors-before-rate-limit'(api) {
    await freshKey(api, { plan: 'free', limits: { hourly: 100, burst: 2 } })
    await api.call('GET', '/v1/user')
    await api.call('GET', '/v1/agents')
    const method = await api.call('DELETE', '/v1/user')
    const route = await api.call('GET', '/v1/agentz')
    const known = await api.call('GET', '/v1/user')
    return [
      [...status(method), method.headers['retry-after'] ?? null, method.headers.allow ?? null],
      [...status(route), route.headers['retry-after'] ?? null],
      status(known),
    ]
  },

  // ---------------------------------------------------------------------------------------- shared state
  async 'user-reads-coalesced-across-accounts'(api) {
    const first = await api.account()
    const firstKey = await api.key(first)
    const second = await api.account({ plan: 'free' })
    const secondKey = await api.key(second)
    const [a, b] = await Promise.all([
      api.call('GET', '/v1/user', undefined, { key: firstKey }),
      api.call('GET', '/v1/user', undefined, { key: secondKey }),
    ])
    const alone = await api.call('GET', '/v1/user', undefined, { key: secondKey })
    return [a.body.id === first, b.body.id === second, b.body.plan, alone.body.id === second]
  },

  async 'request-id-shared-by-requests-in-flight'(api) {
    await freshKey(api)
    const [a, b] = await Promise.all([api.call('GET', '/v1/user'), api.call('GET', '/v1/agents/agt_missing')])
    const c = await api.call('GET', '/v1/user')
    return [
      a.headers['request-id'] === b.headers['request-id'],
      b.body.error.request_id === b.headers['request-id'],
      b.body.error.request_id === a.headers['request-id'],
      c.headers['request-id'] === a.headers['request-id'],
    ]
  },

  async 'analytics-zone-formatter-shared-in-flight'(api) {
    await freshKey(api)
    const [york, tokyo] = await Promise.all([
      api.call('GET', '/v1/analytics/calls?granularity=day&timezone=America/New_York'),
      api.call('GET', '/v1/analytics/calls?granularity=day&timezone=Asia/Tokyo'),
    ])
    return [york.body.timezone, york.body.series[1].start, tokyo.body.timezone, tokyo.body.series[1].start]
  },

  async 'call-log-filters-leak-between-concurrent-lists'(api) {
    api.use(api.demoKey())
    const [completed, all] = await Promise.all([
      api.call('GET', '/v1/call-logs?status=completed&limit=50'),
      api.call('GET', '/v1/call-logs?limit=50'),
    ])
    const statuses = (answer: Answer) =>
      [...new Set((answer.body.data as { status: string }[]).map((log) => log.status))].sort()
    return [statuses(completed), statuses(all)]
  },

  async 'agent-presenter-flag-shared-across-requests'(api) {
    const account = await freshKey(api)
    const publishable = (await api.keyRecord(account, { type: 'publishable', name: 'web' })).value
    const agent = await api.agent('a', { system_prompt: 'Be brief.', metadata: { crm: '7' } })
    const seen = (answer: Answer) => ['system_prompt' in answer.body, 'metadata' in answer.body]
    const secretFirst = await Promise.all([
      api.call('GET', `/v1/agents/${agent}`),
      api.call('GET', `/v1/agents/${agent}`, undefined, { key: publishable }),
    ])
    const publishableFirst = await Promise.all([
      api.call('GET', `/v1/agents/${agent}`, undefined, { key: publishable }),
      api.call('GET', `/v1/agents/${agent}`),
    ])
    return [secretFirst.map(seen), publishableFirst.map(seen)]
  },

  async 'member-reads-batched-out-of-order'(api) {
    await freshKey(api)
    const a = (await invite(api, 'ana@live.test')).body.id
    const b = (await invite(api, 'ben@live.test')).body.id
    const [high, low] = [a, b].sort().reverse() as [string, string]
    const [first, second] = await Promise.all([
      api.call('GET', `/v1/team-members/${high}`),
      api.call('GET', `/v1/team-members/${low}`),
    ])
    return [first.status, first.body.id === high, second.status, second.body.id === low]
  },

  async 'member-removal-answer-names-concurrent-removal'(api) {
    await freshKey(api)
    const a = (await invite(api, 'ana@live.test')).body.id
    const b = (await invite(api, 'ben@live.test')).body.id
    const [first, second] = await Promise.all([
      api.call('DELETE', `/v1/team-members/${a}`),
      api.call('DELETE', `/v1/team-members/${b}`),
    ])
    const left = await api.call('GET', '/v1/team-members')
    return [first.status, first.body.id === a, second.status, second.body.id === b, invited(left)]
  },

  // ------------------------------------------------------------------------------------------------ races
  async 'agent-delete-lost-to-concurrent-patch'(api) {
    await freshKey(api)
    const agent = await api.agent('a')
    const [patched, deleted] = await Promise.all([
      api.call('PATCH', `/v1/agents/${agent}`, { name: 'b' }),
      api.call('DELETE', `/v1/agents/${agent}`),
    ])
    const read = await api.call('GET', `/v1/agents/${agent}`)
    return [patched.status, deleted.status, deleted.body.deleted ?? null, read.status, read.body.name ?? null]
  },

  async 'concurrent-call-log-deletes-both-succeed'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    const call = await completedCall(api, account, agent)
    const both = await Promise.all([
      api.call('DELETE', `/v1/call-logs/${call}`),
      api.call('DELETE', `/v1/call-logs/${call}`),
    ])
    const again = await api.call('DELETE', `/v1/call-logs/${call}`)
    return [...both.map(status), status(again)]
  },

  async 'concurrent-integration-patches-lose-settings'(api) {
    await freshKey(api)
    await api.call('GET', '/v1/integrations/slack')
    const [config, enabled] = await Promise.all([
      api.call('PATCH', '/v1/integrations/slack', { config: { channel: '#alerts' } }),
      api.call('PATCH', '/v1/integrations/slack', { enabled: true }),
    ])
    const read = await api.call('GET', '/v1/integrations/slack')
    return [config.status, enabled.status, enabled.body.config, read.body.config, read.body.enabled]
  },

  async 'concurrent-metadata-replacements-merged'(api) {
    await freshKey(api)
    const agent = await api.agent('a', { metadata: { team: 'front' } })
    const [first, second] = await Promise.all([
      api.call('PATCH', `/v1/agents/${agent}`, { metadata: { region: 'emea' } }),
      api.call('PATCH', `/v1/agents/${agent}`, { metadata: { crm: '7' } }),
    ])
    const read = await api.call('GET', `/v1/agents/${agent}`)
    return [first.body.metadata, second.body.metadata, read.body.metadata]
  },

  async 'team-limit-checked-before-concurrent-invites-count'(api) {
    await freshKey(api, { plan: 'enterprise' })
    for (let i = 1; i <= 198; i++) await invite(api, `m${i}@live.test`)
    await api.advance(1)
    const [x, y] = await Promise.all([invite(api, 'x@live.test'), invite(api, 'y@live.test')])
    const late = y.status === 201 ? await api.call('GET', `/v1/team-members/${y.body.id}`) : undefined
    const first = await api.call('GET', '/v1/team-members?limit=3')
    const more = await invite(api, 'z@live.test')
    const newest = emails(first)
      .filter((email) => !email.startsWith('m'))
      .sort()
    return [status(x), status(y), late?.status ?? null, newest, status(more)]
  },

  async 'member-lookup-timeout-answers-not-found'(api) {
    await freshKey(api)
    const member = (await invite(api, 'kim@live.test')).body.id
    const [invited, changed] = await Promise.all([
      invite(api, 'lee@live.test'),
      api.call('PATCH', `/v1/team-members/${member}`, { role: 'admin' }),
    ])
    const read = await api.call('GET', `/v1/team-members/${member}`)
    return [invited.status, status(changed), read.body.role]
  },

  async 'slow-invites-retried-by-gateway'(api) {
    await freshKey(api)
    const [, , plain] = await Promise.all([
      api.call('GET', '/v1/user'),
      api.call('GET', '/v1/agents'),
      invite(api, 'kim@live.test'),
    ])
    const [, , keyed] = await Promise.all([
      api.call('GET', '/v1/user'),
      api.call('GET', '/v1/agents'),
      invite(api, 'lee@live.test', { 'idempotency-key': 'invite-lee' }),
    ])
    const list = await api.call('GET', '/v1/team-members')
    return [status(plain), [keyed.status, keyed.headers['idempotent-replayed'] ?? null], invited(list)]
  },

  // -------------------------------------------------------------------------------------------- torn reads
  async 'agent-read-between-row-and-settings-writes'(api) {
    await freshKey(api)
    const agent = await api.agent('a')
    const [, read] = await Promise.all([
      api.call('PATCH', `/v1/agents/${agent}`, { name: 'b', voice: { voice_id: 'echo' } }),
      api.call('GET', `/v1/agents/${agent}`),
    ])
    const later = await api.call('GET', `/v1/agents/${agent}`)
    return [read.body.name, read.body.voice.voice_id, later.body.name, later.body.voice.voice_id]
  },

  async 'integration-read-between-status-and-hint-writes'(api) {
    await freshKey(api)
    await api.call('GET', '/v1/integrations')
    const [, read] = await Promise.all([
      api.call('PATCH', '/v1/integrations/slack', { credentials: { bot_token: 'xoxb-1111-ABCD' } }),
      api.call('GET', '/v1/integrations/slack'),
    ])
    const later = await api.call('GET', '/v1/integrations/slack')
    return [
      [read.body.status, read.body.credential_hint, read.body.connected_at !== null],
      [later.body.status, later.body.credential_hint],
    ]
  },

  async 'analytics-totals-read-before-concurrent-delete'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    await completedCall(api, account, agent)
    const call = await completedCall(api, account, agent)
    await api.call('GET', '/v1/call-logs')
    const [, analytics] = await Promise.all([
      api.call('DELETE', `/v1/call-logs/${call}`),
      api.call('GET', '/v1/analytics/calls?granularity=day'),
    ])
    const sum = (analytics.body.series as { metrics: { call_count: number } }[]).reduce(
      (total, bucket) => total + bucket.metrics.call_count,
      0,
    )
    return [analytics.body.totals.call_count, sum]
  },

  // ----------------------------------------------------------------------------------------------- cursors
  async 'ending-before-pages-from-first-page-snapshot'(api) {
    await freshKey(api)
    const [, , c] = await agentsApart(api, ['a', 'b', 'c'])
    const top = await api.call('GET', '/v1/agents?limit=2')
    await api.agent('d')
    await api.advance(1)
    await api.agent('e')
    const back = await api.call('GET', `/v1/agents?ending_before=${c}&limit=1`)
    const all = await api.call('GET', `/v1/agents?ending_before=${c}`)
    return [names(top), [names(back), back.body.has_more], [names(all), all.body.has_more]]
  },

  async 'removed-member-cursor-restarts-list'(api) {
    await freshKey(api, { plan: 'pro', email: 'owner@live.test' })
    await api.advance(1)
    for (const name of ['ana', 'ben', 'cy']) {
      await invite(api, `${name}@live.test`)
      await api.advance(1)
    }
    const page = await api.call('GET', '/v1/team-members?limit=2')
    const cursor = page.body.data[1].id
    await api.call('DELETE', `/v1/team-members/${cursor}`)
    const next = await api.call('GET', `/v1/team-members?limit=2&starting_after=${cursor}`)
    return [emails(page), emails(next)]
  },

  // --------------------------------------------------------------------------------------- order of checks
  async 'integration-locked-before-body-read'(api) {
    await freshKey(api)
    const patch = (slug: string, raw: string, type = 'application/json') =>
      api.call('PATCH', `/v1/integrations/${slug}`, undefined, { raw, headers: { 'content-type': type } })
    return [
      status(await patch('salesfarce', '{"enabled": tru')),
      status(await patch('salesfarce', 'enabled=true', 'application/x-www-form-urlencoded')),
      status(await patch('salesfarce', '{"enabled": true}')),
      status(await patch('salesforce', '{"enabled": tru')),
    ]
  },

  async 'invite-address-reserved-before-validation'(api) {
    await freshKey(api, { plan: 'pro', email: 'owner@live.test' })
    await invite(api, 'kim@live.test')
    const owner = await post(api, '/v1/team-members', { email: 'owner@live.test', role: 'owner' })
    const taken = await post(api, '/v1/team-members', { email: 'KIM@live.test', colour: 'red' })
    const fresh = await post(api, '/v1/team-members', { email: 'lee@live.test', role: 'boss' })
    const again = await invite(api, 'kim@live.test')
    return [status(owner), status(taken), status(fresh), status(again)]
  },

  // ------------------------------------------------------------------------------------------- event order
  async 'same-second-call-stages-applied-out-of-order'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    const busy = await api.startCall(account, agent, { outcome: 'busy', ring_seconds: 0 })
    const talk = await api.startCall(account, agent, { ring_seconds: 0, duration_seconds: 30 })
    const rang = await api.startCall(account, agent, { outcome: 'busy', ring_seconds: 5 })
    await api.advance(3)
    const during = await api.call('GET', '/v1/call-logs')
    await api.advance(60)
    const after = await Promise.all([busy, talk, rang].map((id) => api.call('GET', `/v1/call-logs/${id}`)))
    const byId = (answer: Answer, id: string) =>
      (answer.body.data as { id: string; status: string }[]).find((log) => log.id === id)?.status
    return [[busy, talk, rang].map((id) => byId(during, id)), after.map((answer) => answer.body.status)]
  },

  async 'second-role-change-in-same-second-dropped'(api) {
    await freshKey(api)
    const member = (await invite(api, 'kim@live.test')).body.id
    const first = await api.call('PATCH', `/v1/team-members/${member}`, { role: 'admin' })
    const second = await api.call('PATCH', `/v1/team-members/${member}`, { role: 'editor' })
    const read = await api.call('GET', `/v1/team-members/${member}`)
    await api.advance(1)
    const later = await api.call('PATCH', `/v1/team-members/${member}`, { role: 'editor' })
    const reread = await api.call('GET', `/v1/team-members/${member}`)
    return [first.body.role, second.body.role, read.body.role, later.body.role, reread.body.role]
  },

  async 'invitation-times-made-strictly-increasing'(api) {
    await freshKey(api)
    const a = await invite(api, 'ana@live.test')
    const b = await invite(api, 'ben@live.test')
    const read = await api.call('GET', `/v1/team-members/${b.body.id}`)
    return [
      seconds(a.body.created_at, b.body.created_at),
      seconds(b.body.created_at, b.body.invited_at),
      seconds(a.body.created_at, read.body.created_at),
    ]
  },
}

await showLive(faults, scenarios)

/**
 * Shows that every fault of held-out fault set 18 is live: for each one, a short scenario (accounts and keys
 * provisioned through the control plane, simulated calls started there, then v1 requests sent as a client sends them
 * on the rare paths the set is about, and the reads that show what was kept) is run against a fresh correct engine,
 * again against another fresh correct engine (the scenario must observe the same thing twice: nothing random leaks
 * into it), and against a fresh engine wrapped in the fault. A fault is LIVE when its observation differs from the
 * correct one. Ordinary traffic (the first reads of every endpoint, a create and a read) is also run through each
 * fault, which should leave it unchanged. The engines' clocks are frozen at one instant and move only when a scenario
 * advances them, so that every run sees the same times (`npx tsx scripts/fault-sets/held-out-18-live.ts`).
 */
import { faults } from '../../test/fault-sets/held-out-18.ts'
import { type Answer, type Api, agentBody, freshKey, labelled, showLive, status } from './live-harness.ts'

// -------------------------------------------------------------------------------------------- helpers

const invite = (api: Api, email: string, role?: string) =>
  api.call('POST', '/v1/team-members', { email, ...(role ? { role } : {}) })
/** The fields of a 422's entries that a client reads. */
const entries = (answer: Answer) =>
  (answer.body?.error?.errors ?? []).map((entry: { param: string; code: string }) => [
    entry.param,
    entry.code,
  ])

// -------------------------------------------------------------------------------------------- scenarios

const scenarios: Record<string, (api: Api) => Promise<unknown>> = {
  // ---------------------------------------------------------------------------------------------- plans
  async 'enterprise-default-quotas-from-pro'(api) {
    await freshKey(api, { plan: 'enterprise' })
    const first = await api.call('GET', '/v1/user')
    const statuses: number[] = []
    for (let i = 0; i < 51; i++) statuses.push((await api.call('GET', '/v1/agents')).status)
    return [
      first.headers['ratelimit-policy'],
      first.headers['x-ratelimit-limit'],
      statuses.filter((code) => code === 429).length,
    ]
  },

  async 'custom-limits-reported-as-enterprise'(api) {
    await freshKey(api, { plan: 'free', limits: { hourly: 500, burst: 20 } })
    const custom = await api.call('GET', '/v1/user')
    await freshKey(api, { plan: 'pro' })
    const plain = await api.call('GET', '/v1/user')
    return [custom.body.plan, plain.body.plan]
  },

  async 'legacy-ratelimit-fields-always-burst'(api) {
    await freshKey(api, { plan: 'free', limits: { hourly: 5, burst: 10 } })
    const answer = await api.call('GET', '/v1/user')
    return [
      answer.headers.ratelimit,
      answer.headers['x-ratelimit-limit'],
      answer.headers['x-ratelimit-remaining'],
    ]
  },

  // ---------------------------------------------------------------------------------------------- roles
  async 'last-admin-demotion-refused'(api) {
    await freshKey(api)
    const kim = (await invite(api, 'kim@live.test', 'admin')).body.id
    const demoted = await api.call('PATCH', `/v1/team-members/${kim}`, { role: 'viewer' })
    const read = await api.call('GET', `/v1/team-members/${kim}`)
    const lee = (await invite(api, 'lee@live.test', 'admin')).body.id
    const removed = await api.call('DELETE', `/v1/team-members/${lee}`)
    return [status(demoted), read.body.role, status(removed)]
  },

  async 'active-member-role-change-reinvites'(api) {
    api.use(api.demoKey())
    const team = await api.call('GET', '/v1/team-members?limit=100')
    const member = (team.body.data as { id: string; role: string; status: string }[]).find(
      (one) => one.status === 'active' && one.role !== 'owner',
    )
    if (!member) throw new Error('the demo team has no active member')
    const role = member.role === 'viewer' ? 'editor' : 'viewer'
    const changed = await api.call('PATCH', `/v1/team-members/${member.id}`, { role })
    const read = await api.call('GET', `/v1/team-members/${member.id}`)
    return [changed.status, changed.body.status, changed.body.joined_at === null, read.body.status]
  },

  async 'owner-read-by-id-with-invited-at'(api) {
    await freshKey(api)
    const team = await api.call('GET', '/v1/team-members')
    const owner = (team.body.data as { id: string; role: string }[]).find((one) => one.role === 'owner')
    const read = await api.call('GET', `/v1/team-members/${owner?.id}`)
    return [read.status, read.body.role, read.body.invited_at]
  },

  // --------------------------------------------------------------------------------------------- scopes
  async 'analytics-agent-filter-needs-agents-read'(api) {
    const account = await api.account()
    await api.key(account, { permissions: ['analytics:read'] })
    const filtered = await api.call('GET', '/v1/analytics/calls?agent_id=agt_live1')
    const grouped = await api.call('GET', '/v1/analytics/calls?group_by=agent_id')
    const plain = await api.call('GET', '/v1/analytics/calls')
    return [status(filtered), status(grouped), status(plain)]
  },

  async 'publishable-writes-refused-as-restricted'(api) {
    const account = await api.account()
    await api.key(account, { type: 'publishable', name: 'widget' })
    const create = await api.call('POST', '/v1/agents', agentBody('a'))
    const logs = await api.call('GET', '/v1/call-logs')
    return [
      [...status(create), create.body.error?.required_permission ?? null],
      [...status(logs), logs.body.error?.required_permission ?? null],
    ]
  },

  // ------------------------------------------------------------------------------------------- instants
  async 'key-expiry-after-2038-wraps'(api) {
    const account = await api.account()
    await api.key(account, { restrictions: { expires_at: '2040-01-01T00:00:00Z' } })
    const far = await api.call('GET', '/v1/user')
    await api.key(account, { restrictions: { expires_at: '2030-01-01T00:00:00Z' } })
    const near = await api.call('GET', '/v1/user')
    return [status(far), /expired/.test(far.body.error?.message ?? ''), status(near)]
  },

  // ------------------------------------------------------------------------------------- rare operations
  async 'google-calendar-slug-unroutable'(api) {
    await freshKey(api)
    const read = await api.call('GET', '/v1/integrations/google_calendar')
    const update = await api.call('PATCH', '/v1/integrations/google_calendar', { enabled: true })
    const other = await api.call('GET', '/v1/integrations/slack')
    return [status(read), status(update), status(other)]
  },

  async 'disconnect-of-unconnected-integration-404'(api) {
    await freshKey(api)
    const never = await api.call('PATCH', '/v1/integrations/hubspot', { credentials: null })
    await api.call('PATCH', '/v1/integrations/slack', { credentials: { bot_token: 'xoxb-live-0000' } })
    const connected = await api.call('PATCH', '/v1/integrations/slack', { credentials: null })
    return [status(never), never.body.status ?? null, status(connected), connected.body.status ?? null]
  },

  async 'head-on-item-paths-405'(api) {
    await freshKey(api)
    const agent = await api.agent('a')
    const item = await api.call('HEAD', `/v1/agents/${agent}`)
    const list = await api.call('HEAD', '/v1/agents')
    return [status(item), item.headers.allow ?? null, list.status]
  },

  // -------------------------------------------------------------------------------------------- extremes
  async 'webhook-url-limited-to-255-characters'(api) {
    await freshKey(api)
    const long = `https://hooks.live.test/voice?token=${'a'.repeat(300)}`
    const created = await api.call('POST', '/v1/agents', agentBody('a', { webhook_url: long }))
    const agent = await api.agent('b')
    const updated = await api.call('PATCH', `/v1/agents/${agent}`, { webhook_url: long })
    const short = await api.call('PATCH', `/v1/agents/${agent}`, { webhook_url: 'https://hooks.live.test/v' })
    return [status(created), entries(created), status(updated), short.status]
  },

  async 'anthropic-temperature-capped-at-one'(api) {
    await freshKey(api)
    const claude = { provider: 'anthropic', model: 'claude-sonnet' }
    const hot = await api.call('POST', '/v1/agents', agentBody('a', { llm: { ...claude, temperature: 1.5 } }))
    const agent = await api.agent('b', { llm: { ...claude, temperature: 0.5 } })
    const warmer = await api.call('PATCH', `/v1/agents/${agent}`, { llm: { temperature: 1.8 } })
    const openai = await api.call(
      'POST',
      '/v1/agents',
      agentBody('c', { llm: { provider: 'openai', model: 'gpt-4o', temperature: 1.5 } }),
    )
    return [status(hot), status(warmer), entries(warmer), openai.status]
  },

  async 'zone-names-with-signs-or-digits-refused'(api) {
    await freshKey(api)
    const fixed = await api.call('GET', '/v1/analytics/calls?timezone=Etc%2FGMT%2B5')
    const haiti = await api.call('GET', '/v1/analytics/calls?timezone=America/Port-au-Prince')
    const berlin = await api.call('GET', '/v1/analytics/calls?timezone=Europe/Berlin')
    return [status(fixed), status(haiti), status(berlin)]
  },

  async 'zero-duration-bounds-ignored'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    const done = await api.startCall(account, agent)
    await api.advance(70)
    const live = await api.startCall(account, agent)
    await api.advance(2)
    const labels = { [done]: 'done', [live]: 'live' }
    const min = await api.call('GET', '/v1/call-logs?min_duration_seconds=0')
    const max = await api.call('GET', '/v1/call-logs?max_duration_seconds=0')
    return [labelled(min, labels), labelled(max, labels)]
  },

  async 'pre-epoch-started-bounds-refused'(api) {
    api.use(api.demoKey())
    const zero = await api.call('GET', '/v1/call-logs?started_after=0001-01-01T00:00:00Z&limit=5')
    const epoch = await api.call('GET', '/v1/call-logs?started_after=1970-01-01T00:00:00Z&limit=5')
    return [status(zero), zero.body.data?.length ?? null, status(epoch)]
  },

  async 'leap-day-bounds-refused'(api) {
    await freshKey(api)
    const leap = await api.call(
      'GET',
      '/v1/analytics/calls?start=2024-02-29T00:00:00Z&end=2024-03-02T00:00:00Z',
    )
    const plain = await api.call(
      'GET',
      '/v1/analytics/calls?start=2024-03-01T00:00:00Z&end=2024-03-02T00:00:00Z',
    )
    return [status(leap), leap.body.series?.length ?? null, status(plain)]
  },

  // -------------------------------------------------------------------------------------------- calendar
  async 'december-month-bucket-crashes'(api) {
    await freshKey(api)
    const yearEnd = await api.call(
      'GET',
      '/v1/analytics/calls?granularity=month&start=2025-11-15T00:00:00Z&end=2026-02-01T00:00:00Z',
    )
    const spring = await api.call(
      'GET',
      '/v1/analytics/calls?granularity=month&start=2026-01-05T00:00:00Z&end=2026-03-01T00:00:00Z',
    )
    return [status(yearEnd), yearEnd.body.series?.length ?? null, status(spring)]
  },

  async 'aligned-end-adds-empty-bucket'(api) {
    await freshKey(api)
    const week = await api.call(
      'GET',
      '/v1/analytics/calls?granularity=day&start=2026-03-01T00:00:00Z&end=2026-03-08T00:00:00Z',
    )
    const series = week.body.series as { start: string; end: string }[]
    const last = series[series.length - 1]
    return [series.length, last?.start, last?.end]
  },

  // ----------------------------------------------------------------------------------------- rare states
  async 'unanswered-call-cost-null'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    const call = await api.startCall(account, agent, { outcome: 'no_answer', ring_seconds: 5 })
    await api.advance(10)
    const read = await api.call('GET', `/v1/call-logs/${call}`)
    const list = await api.call('GET', '/v1/call-logs')
    return [read.body.status, read.body.cost_usd, list.body.data[0]?.cost_usd]
  },

  async 'duration-cap-reported-as-agent-ended'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a', { max_call_duration_seconds: 30 })
    const call = await api.startCall(account, agent, { duration_seconds: 90 })
    await api.advance(60)
    const read = await api.call('GET', `/v1/call-logs/${call}`)
    return [read.body.status, read.body.end_reason]
  },

  async 'agent-with-live-call-undeletable'(api) {
    const account = await freshKey(api)
    const busy = await api.agent('busy')
    const idle = await api.agent('idle')
    await api.startCall(account, busy)
    await api.advance(10)
    const during = await api.call('DELETE', `/v1/agents/${busy}`)
    const other = await api.call('DELETE', `/v1/agents/${idle}`)
    await api.advance(70)
    const after = await api.call('DELETE', `/v1/agents/${busy}`)
    return [status(during), other.status, status(after)]
  },

  // ----------------------------------------------------------------------------------------- rare values
  async 'canceled-status-filter-spelled-cancelled'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    await api.startCall(account, agent, { outcome: 'canceled', ring_seconds: 3 })
    await api.advance(10)
    const us = await api.call('GET', '/v1/call-logs?status=canceled')
    const uk = await api.call('GET', '/v1/call-logs?status=cancelled')
    return [status(us), us.body.data?.length ?? null, status(uk), uk.body.data?.length ?? null]
  },

  async 'newer-voice-providers-refused-on-update'(api) {
    await freshKey(api)
    const agent = await api.agent('a')
    const deepgram = await api.call('PATCH', `/v1/agents/${agent}`, { voice: { provider: 'deepgram' } })
    const created = await api.call(
      'POST',
      '/v1/agents',
      agentBody('b', { voice: { provider: 'playht', voice_id: 'p1' } }),
    )
    return [status(deepgram), entries(deepgram), created.status]
  },

  // ------------------------------------------------------------------------------------- optional fields
  async 'explicit-null-refused-on-create'(api) {
    await freshKey(api)
    const created = await api.call(
      'POST',
      '/v1/agents',
      agentBody('a', { description: null, first_message: null, webhook_url: null }),
    )
    return [status(created), entries(created), created.body.description ?? null]
  },

  async 'publishable-view-nulls-sensitive-fields'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a', { system_prompt: 'Be brief.' })
    const publishable = (await api.keyRecord(account, { type: 'publishable', name: 'web' })).value
    const read = await api.call('GET', `/v1/agents/${agent}`, undefined, { key: publishable })
    const list = await api.call('GET', '/v1/agents', undefined, { key: publishable })
    return [
      'system_prompt' in read.body,
      'metadata' in read.body,
      'webhook_url' in (list.body.data[0] ?? {}),
      read.body.system_prompt ?? null,
    ]
  },

  async 'web-call-numbers-empty-strings'(api) {
    const account = await freshKey(api)
    const agent = await api.agent('a')
    const web = await api.startCall(account, agent, { channel: 'web', direction: 'inbound' })
    const phone = await api.startCall(account, agent)
    await api.advance(70)
    const read = await api.call('GET', `/v1/call-logs/${web}`)
    const other = await api.call('GET', `/v1/call-logs/${phone}`)
    return [read.body.channel, read.body.from_number, read.body.to_number, typeof other.body.from_number]
  },

  async 'user-first-speaker-drops-first-message'(api) {
    await freshKey(api)
    const created = await api.call(
      'POST',
      '/v1/agents',
      agentBody('a', { first_speaker: 'user', first_message: 'Hello, how can I help?' }),
    )
    const agent = await api.agent('b', { first_message: 'Hi there.' })
    const switched = await api.call('PATCH', `/v1/agents/${agent}`, { first_speaker: 'user' })
    const read = await api.call('GET', `/v1/agents/${agent}`)
    return [created.body.first_message, switched.body.first_message, read.body.first_message]
  },

  // --------------------------------------------------------------------------------------------- headers
  async 'cors-exposes-request-id-only'(api) {
    await freshKey(api)
    const answer = await api.call('GET', '/v1/user', undefined, {
      headers: { origin: 'https://app.live.test' },
    })
    return [answer.status, answer.headers['access-control-expose-headers'] ?? null]
  },
}

await showLive(faults, scenarios)

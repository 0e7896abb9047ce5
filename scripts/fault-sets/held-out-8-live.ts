/**
 * Shows that every fault of held-out fault set 8 is live: for each one, a short scenario (accounts and keys
 * provisioned through the control plane, then v1 requests sent as a client over HTTP sends them, the mock clock
 * moved where time matters) is run against a fresh correct engine, again against another fresh correct engine (the
 * scenario must observe the same thing twice: nothing random leaks into it), and against a fresh engine wrapped in
 * the fault. A fault is LIVE when its observation differs from the correct one. Ordinary traffic (the first reads
 * of every endpoint, a create and a read) is also run through each fault, which should leave it unchanged. The
 * engines' clocks are frozen at one instant and move only when a scenario advances them, so that every run sees
 * the same times (`node --import tsx scripts/fault-sets/held-out-8-live.ts`).
 */
import { faults } from '../../test/fault-sets/held-out-8.ts'
import { type Api, agentBody, agentsApart, at, errorCode, labelled, names, showLive } from './live-harness.ts'

/** Which of the sensitive agent fields an agent of an answer shows. */
const sensitive = (agent: Record<string, unknown>) =>
  ['system_prompt', 'webhook_url', 'metadata'].filter((field) => field in agent)

const secretFields = {
  system_prompt: 'Be brief.',
  webhook_url: 'https://hooks.live.test/x',
  metadata: { a: 'b' },
}

/** `n` reads of `/v1/user` with the session's key (to use up a window). */
async function reads(api: Api, n: number, headers: Record<string, string> = {}) {
  for (let i = 0; i < n; i++) await api.call('GET', '/v1/user', undefined, { headers })
}

// -------------------------------------------------------------------------------------------- scenarios

const scenarios: Record<string, (api: Api) => Promise<unknown>> = {
  async 'user-guarded-by-agents-read'(api) {
    await api.key(await api.account(), { permissions: ['call_logs:read', 'analytics:read'] })
    const user = await api.call('GET', '/v1/user')
    return [user.status, errorCode(user), user.body.object ?? null]
  },

  async 'read-only-secret-key-treated-as-publishable'(api) {
    const account = await api.account()
    await api.key(account)
    const agent = await api.agent('a', secretFields)
    await api.key(account, { permissions: ['agents:read'] })
    const list = await api.call('GET', '/v1/agents')
    const one = await api.call('GET', `/v1/agents/${agent}`)
    return { list: sensitive(list.body.data[0]), one: sensitive(one.body) }
  },

  async 'call-log-read-by-id-unguarded'(api) {
    const account = await api.account()
    await api.key(account)
    const call = await api.startCall(account, await api.agent('a'))
    await api.key(account, { permissions: ['agents:read'] })
    const read = await api.call('GET', `/v1/call-logs/${call}`)
    return [read.status, errorCode(read), read.body.error?.required_permission ?? null]
  },

  async 'allowed-ips-first-entry-only'(api) {
    const account = await api.account()
    await api.key(account, { restrictions: { allowed_ips: ['10.0.0.0/8', '127.0.0.0/8'] } })
    const user = await api.call('GET', '/v1/user')
    const made = await api.call('POST', '/v1/agents', agentBody('a'))
    await api.key(account)
    const list = await api.call('GET', '/v1/agents')
    return { user: [user.status, errorCode(user)], made: [made.status, errorCode(made)], agents: names(list) }
  },

  async 'publishable-key-sees-sensitive-fields-on-later-pages'(api) {
    const account = await api.account()
    await api.key(account)
    await api.agent('old', secretFields)
    await api.advance(1)
    await api.agent('new', secretFields)
    await api.key(account, { type: 'publishable' })
    const first = await api.call('GET', '/v1/agents?limit=1')
    const next = await api.call('GET', `/v1/agents?limit=1&starting_after=${first.body.data[0].id}`)
    const back = await api.call('GET', `/v1/agents?limit=1&ending_before=${next.body.data[0].id}`)
    return {
      first: first.body.data.map(sensitive),
      next: next.body.data.map(sensitive),
      back: back.body.data.map(sensitive),
    }
  },

  async 'has-more-true-on-exactly-full-page'(api) {
    await api.key(await api.account())
    await agentsApart(api, ['a', 'b'])
    const page = await api.call('GET', '/v1/agents?limit=2')
    const rest = page.body.has_more
      ? await api.call('GET', `/v1/agents?limit=2&starting_after=${page.body.data[1].id}`)
      : undefined
    return { names: names(page), has_more: page.body.has_more, rest: rest ? names(rest) : null }
  },

  async 'anthropic-temperature-defaults-to-one'(api) {
    await api.key(await api.account())
    const made = await api.call(
      'POST',
      '/v1/agents',
      agentBody('a', { llm: { provider: 'anthropic', model: 'claude-sonnet-4' } }),
    )
    const read = await api.call('GET', `/v1/agents/${made.body.id}`)
    return [made.status, made.body.llm, read.body.llm]
  },

  async 'voice-speed-unchecked-on-update'(api) {
    await api.key(await api.account())
    const agent = await api.agent('a')
    const patched = await api.call('PATCH', `/v1/agents/${agent}`, { voice: { speed: 3 } })
    const read = await api.call('GET', `/v1/agents/${agent}`)
    const list = await api.call('GET', '/v1/agents')
    return {
      patch: [patched.status, errorCode(patched)],
      read: read.body.voice.speed,
      list: list.body.data[0].voice.speed,
    }
  },

  async 'metadata-key-of-40-characters-refused'(api) {
    await api.key(await api.account())
    const key40 = 'k'.repeat(40)
    const made = await api.call('POST', '/v1/agents', agentBody('a', { metadata: { [key40]: 'v' } }))
    const agent = await api.agent('b')
    const patched = await api.call('PATCH', `/v1/agents/${agent}`, { metadata: { [key40]: 'w' } })
    return { create: [made.status, errorCode(made)], update: [patched.status, errorCode(patched)] }
  },

  async 'equal-duration-bounds-refused'(api) {
    const account = await api.account()
    await api.key(account)
    const agent = await api.agent('a')
    const labels: Record<string, string> = {}
    labels[await api.startCall(account, agent, { duration_seconds: 30 })] = 'thirty'
    labels[await api.startCall(account, agent, { duration_seconds: 31 })] = 'thirty-one'
    await api.advance(100)
    const list = await api.call('GET', '/v1/call-logs?min_duration_seconds=30&max_duration_seconds=30')
    return [list.status, errorCode(list), list.status === 200 ? labelled(list, labels) : null]
  },

  async 'call-under-way-cannot-be-deleted'(api) {
    const account = await api.account()
    await api.key(account)
    const agent = await api.agent('a')
    const live = await api.startCall(account, agent, { duration_seconds: 120 })
    await api.advance(6)
    const during = await api.call('DELETE', `/v1/call-logs/${live}`)
    const ended = await api.startCall(account, agent, { duration_seconds: 10 })
    await api.advance(100)
    const after = await api.call('DELETE', `/v1/call-logs/${ended}`)
    const list = await api.call('GET', '/v1/call-logs')
    return {
      during: [during.status, errorCode(during)],
      after: [after.status, errorCode(after)],
      left: list.body.data.length,
    }
  },

  async 'empty-direction-groups-listed'(api) {
    const account = await api.account()
    await api.key(account)
    const agent = await api.agent('a')
    await api.startCall(account, agent, { direction: 'inbound', duration_seconds: 20 })
    await api.advance(100)
    const byDirection = await api.call('GET', '/v1/analytics/calls?group_by=direction&granularity=total')
    const byChannel = await api.call('GET', '/v1/analytics/calls?group_by=channel&granularity=total')
    const values = (answer: { body: { groups: { value: string }[] } }) =>
      answer.body.groups.map((g) => g.value)
    return { direction: values(byDirection), channel: values(byChannel) }
  },

  async 'empty-config-ignored-on-update'(api) {
    await api.key(await api.account())
    await api.call('PATCH', '/v1/integrations/slack', { config: { channel: '#calls' } })
    const emptied = await api.call('PATCH', '/v1/integrations/slack', { enabled: false, config: {} })
    const read = await api.call('GET', '/v1/integrations/slack')
    return { answer: [emptied.status, emptied.body.config], read: read.body.config }
  },

  async 'integration-list-cached-a-minute'(api) {
    await api.key(await api.account())
    const slack = (answer: { body: { data: { id: string; enabled: boolean }[] } }) =>
      answer.body.data.find((i) => i.id === 'slack')?.enabled
    const before = await api.call('GET', '/v1/integrations')
    await api.call('PATCH', '/v1/integrations/slack', { enabled: true })
    await api.advance(5)
    const soon = await api.call('GET', '/v1/integrations')
    await api.advance(60)
    const later = await api.call('GET', '/v1/integrations')
    return [slack(before), slack(soon), slack(later)]
  },

  async 'member-email-case-kept'(api) {
    await api.key(await api.account())
    const made = await api.call('POST', '/v1/team-members', { email: 'Priya.Nair@Example.COM' })
    const read = await api.call('GET', `/v1/team-members/${made.body.id}`)
    const again = await api.call('POST', '/v1/team-members', { email: 'priya.nair@example.com' })
    return { made: made.body.email, read: read.body.email, again: [again.status, errorCode(again)] }
  },

  async 'hour-range-of-744-buckets-refused'(api) {
    await api.key(await api.account())
    const month = await api.call(
      'GET',
      '/v1/analytics/calls?granularity=hour&start=2026-02-01T00:00:00Z&end=2026-03-04T00:00:00Z',
    )
    return [month.status, errorCode(month), month.body.series?.length ?? null]
  },

  async 'future-end-refused'(api) {
    await api.key(await api.account())
    const today = await api.call(
      'GET',
      '/v1/analytics/calls?start=2026-03-10T00:00:00Z&end=2026-03-11T00:00:00Z&granularity=hour',
    )
    return [today.status, errorCode(today), today.body.series?.length ?? null]
  },

  async 'analytics-bounds-drop-their-offset'(api) {
    const account = await api.account()
    await api.key(account)
    await api.startCall(account, await api.agent('a'), { duration_seconds: 10 })
    await api.advance(100)
    // 2026-03-10T07:00:00-05:00 is 12:00 UTC, when the call was made.
    const range = await api.call(
      'GET',
      '/v1/analytics/calls?granularity=total&start=2026-03-10T07:00:00-05:00&end=2026-03-10T08:00:00-05:00',
    )
    return [range.status, range.body.start, range.body.end, range.body.totals?.call_count]
  },

  async 'member-role-read-stale-after-change'(api) {
    await api.key(await api.account())
    const member = (await api.call('POST', '/v1/team-members', { email: 'bo@live.test' })).body.id
    const patched = await api.call('PATCH', `/v1/team-members/${member}`, { role: 'editor' })
    const now = await api.call('GET', `/v1/team-members/${member}`)
    await api.advance(1)
    const later = await api.call('GET', `/v1/team-members/${member}`)
    return [patched.body.role, now.body.role, later.body.role]
  },

  async 'retry-after-one-second-short'(api) {
    await api.key(await api.account({ plan: 'free' }))
    await reads(api, 10)
    await api.advance(30)
    const refused = await api.call('GET', '/v1/user')
    const wait = Number(refused.headers['retry-after'])
    await api.advance(wait)
    const retry = await api.call('GET', '/v1/user')
    return { refused: [refused.status, wait, refused.body.error?.retry_after], retry: retry.status }
  },

  async 'burst-reset-at-next-whole-minute'(api) {
    await api.key(await api.account({ plan: 'free' }))
    await api.advance(15)
    const first = await api.call('GET', '/v1/user')
    await api.advance(10)
    const second = await api.call('GET', '/v1/user')
    return [first.headers.ratelimit, second.headers.ratelimit, second.headers['x-ratelimit-reset']]
  },

  async 'preflight-requires-authentication'(api) {
    const preflight = await api.call('OPTIONS', '/v1/agents', undefined, {
      key: '',
      headers: { origin: 'https://app.live.test', 'access-control-request-method': 'POST' },
    })
    return [preflight.status, preflight.headers['access-control-allow-origin'] ?? null]
  },

  async 'cors-headers-missing-on-429'(api) {
    await api.key(await api.account({ plan: 'free' }))
    const origin = { origin: 'https://app.live.test' }
    await reads(api, 10, origin)
    const refused = await api.call('GET', '/v1/user', undefined, { headers: origin })
    return [
      refused.status,
      refused.headers['access-control-allow-origin'] ?? null,
      refused.headers['access-control-expose-headers']?.includes('Retry-After') ?? null,
    ]
  },

  async 'idempotency-key-of-255-characters-refused'(api) {
    await api.key(await api.account())
    const made = await api.call('POST', '/v1/agents', agentBody('a'), {
      headers: { 'idempotency-key': 'k'.repeat(255) },
    })
    return [made.status, errorCode(made)]
  },

  async 'replay-carries-stored-ratelimit-headers'(api) {
    await api.key(await api.account())
    const key = { 'idempotency-key': 'create-a-1' }
    const first = await api.call('POST', '/v1/agents', agentBody('a'), { headers: key })
    await reads(api, 3)
    const replay = await api.call('POST', '/v1/agents', agentBody('a'), { headers: key })
    return {
      first: first.headers.ratelimit,
      replay: [
        replay.headers['idempotent-replayed'],
        replay.headers.ratelimit,
        replay.headers['x-ratelimit-remaining'],
      ],
    }
  },

  async 'idempotency-keys-scoped-per-api-key'(api) {
    const account = await api.account()
    const one = await api.key(account)
    const two = await api.key(account)
    const key = { 'idempotency-key': 'order-7' }
    await api.call('POST', '/v1/agents', agentBody('a'), { key: one, headers: key })
    const other = await api.call('POST', '/v1/agents', agentBody('b'), { key: two, headers: key })
    await api.advance(1)
    const retry = await api.call('POST', '/v1/agents', agentBody('a'), { key: two, headers: key })
    const list = await api.call('GET', '/v1/agents')
    return {
      other: [other.status, errorCode(other)],
      retry: [retry.status, errorCode(retry), retry.headers['idempotent-replayed'] ?? null],
      agents: names(list),
    }
  },

  async 'expired-key-reported-as-revoked'(api) {
    const account = await api.account()
    const key = await api.keyRecord(account, { restrictions: { expires_at: at(60) } })
    await api.advance(120)
    const user = await api.call('GET', '/v1/user', undefined, { key: key.value })
    const message = String(user.body.error?.message ?? '')
    return [user.status, /expire/i.test(message), /revoked/i.test(message)]
  },

  async 'unknown-v1-route-before-authentication'(api) {
    const none = await api.call('GET', '/v1/agent', undefined, { key: '' })
    const bad = await api.call('GET', '/v1/calls', undefined, { key: `sk-svc-${'x'.repeat(40)}` })
    return { none: [none.status, errorCode(none)], bad: [bad.status, errorCode(bad)] }
  },

  async 'unparseable-body-before-media-type'(api) {
    await api.key(await api.account())
    const form = await api.call('POST', '/v1/agents', undefined, {
      raw: 'name=a&voice=alloy',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    const text = await api.call('PATCH', '/v1/integrations/slack', undefined, {
      raw: 'enabled',
      headers: { 'content-type': 'text/plain' },
    })
    return { form: [form.status, errorCode(form)], text: [text.status, errorCode(text)] }
  },

  async 'unknown-field-code-from-schema-library'(api) {
    await api.key(await api.account())
    const made = await api.call('POST', '/v1/agents', agentBody('a', { colour: 'blue' }))
    const member = await api.call('POST', '/v1/team-members', { email: 'a@live.test', team: 'x' })
    const codes = (answer: { body: { error?: { errors?: { code: string }[] } } }) =>
      (answer.body.error?.errors ?? []).map((e) => e.code)
    return { agent: [made.status, codes(made)], member: [member.status, codes(member)] }
  },
}

await showLive(faults, scenarios)

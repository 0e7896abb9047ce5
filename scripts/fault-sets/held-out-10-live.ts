/**
 * Shows that every fault of held-out fault set 10 is live: for each one, a short scenario (accounts and keys
 * provisioned through the control plane, then v1 requests sent as a client over HTTP sends them: other header
 * spellings, query values, JSON number forms, encodings, the mock clock moved where time matters) is run against a
 * fresh correct engine, again against another fresh correct engine (the scenario must observe the same thing twice:
 * nothing random leaks into it), and against a fresh engine wrapped in the fault. A fault is LIVE when its
 * observation differs from the correct one. Ordinary traffic (the first reads of every endpoint, a create and a read)
 * is also run through each fault, which should leave it unchanged. The engines' clocks are frozen at one instant and
 * move only when a scenario advances them (`node --import tsx scripts/fault-sets/held-out-10-live.ts`).
 */
import { faults } from '../../test/fault-sets/held-out-10.ts'
import { type Answer, type Api, agentBody, errorCode, labelled, showLive, T0 } from './live-harness.ts'

// -------------------------------------------------------------------------------------------- helpers

/** A new account with a key (the session's key); the key's value. */
const freshKey = async (api: Api, input?: Record<string, unknown>) => api.key(await api.account(input))

const outcome = (answer: Answer) => [answer.status, errorCode(answer)]

/** The field names of an object answer, sorted. */
const fieldsOf = (answer: Answer) => Object.keys(answer.body ?? {}).sort()

/** The parameters the 422 of an answer names. */
const paramsOf = (answer: Answer) =>
  (answer.body?.error?.errors ?? []).map((e: { param: string; code: string }) => `${e.param}:${e.code}`)

// -------------------------------------------------------------------------------------------- scenarios

const scenarios: Record<string, (api: Api) => Promise<unknown>> = {
  async 'bearer-token-split-on-single-space'(api) {
    const key = await freshKey(api)
    const two = await api.call('GET', '/v1/user', undefined, {
      key: '',
      headers: { authorization: `Bearer  ${key}` },
    })
    const one = await api.call('GET', '/v1/user', undefined, {
      key: '',
      headers: { authorization: `Bearer ${key}` },
    })
    return { two: outcome(two), one: outcome(one) }
  },

  async 'bearer-scheme-matched-case-sensitively'(api) {
    const key = await freshKey(api)
    const lower = await api.call('GET', '/v1/agents', undefined, {
      key: '',
      headers: { authorization: `bearer ${key}` },
    })
    const upper = await api.call('GET', '/v1/user', undefined, {
      key: '',
      headers: { authorization: `BEARER ${key}` },
    })
    return { lower: outcome(lower), upper: outcome(upper) }
  },

  async 'accept-list-answered-406'(api) {
    await freshKey(api)
    const axios = await api.call('GET', '/v1/agents', undefined, {
      headers: { accept: 'application/json, text/plain, */*' },
    })
    const charset = await api.call('GET', '/v1/user', undefined, {
      headers: { accept: 'application/json; charset=utf-8' },
    })
    const plain = await api.call('GET', '/v1/user', undefined, { headers: { accept: 'application/json' } })
    return { axios: axios.status, charset: charset.status, plain: plain.status }
  },

  async 'member-removal-answered-as-html'(api) {
    await freshKey(api)
    const member = await api.call('POST', '/v1/team-members', { email: 'gone@live.test' })
    const removed = await api.call('DELETE', `/v1/team-members/${member.body.id}`)
    return {
      status: removed.status,
      type: removed.headers['content-type'] ?? null,
      json: typeof removed.body === 'object',
    }
  },

  async 'x-ratelimit-reset-in-milliseconds-on-429'(api) {
    await freshKey(api, { plan: 'free', limits: { hourly: 100, burst: 2 } })
    const now = Math.floor(T0 / 1000)
    const admitted = await api.call('GET', '/v1/user')
    await api.call('GET', '/v1/user')
    const refused = await api.call('GET', '/v1/user')
    return {
      admitted: Number(admitted.headers['x-ratelimit-reset']) - now,
      refused: [refused.status, Number(refused.headers['x-ratelimit-reset']) - now],
    }
  },

  async 'ratelimit-remaining-before-count-on-updates'(api) {
    await freshKey(api, { plan: 'free', limits: { hourly: 100, burst: 10 } })
    const agent = await api.agent('a')
    const read = await api.call('GET', `/v1/agents/${agent}`)
    const patch = await api.call('PATCH', `/v1/agents/${agent}`, { name: 'b' })
    const removed = await api.call('DELETE', `/v1/agents/${agent}`)
    return {
      read: read.headers.ratelimit ?? null,
      patch: [patch.headers.ratelimit ?? null, patch.headers['x-ratelimit-remaining'] ?? null],
      removed: removed.headers.ratelimit ?? null,
    }
  },

  async 'integration-json-errors-from-framework-handler'(api) {
    await freshKey(api)
    const broken = await api.call('PATCH', '/v1/integrations/slack', undefined, { raw: '{"enabled": tru' })
    const array = await api.call('PATCH', '/v1/integrations/twilio', undefined, { raw: '[1, 2]' })
    return {
      broken: [broken.status, errorCode(broken), broken.body?.code ?? null],
      array: [array.status, errorCode(array)],
    }
  },

  async 'agent-body-limit-at-framework-default'(api) {
    await freshKey(api)
    const metadata: Record<string, string> = {}
    for (let i = 0; i < 50; i++) metadata[`k${i}`] = '€'.repeat(500)
    const body = agentBody('long', { system_prompt: '€'.repeat(20_000), metadata })
    const made = await api.call('POST', '/v1/agents', body)
    const list = await api.call('GET', '/v1/agents')
    return { made: outcome(made), agents: list.body.data.length }
  },

  async 'analytics-query-validated-before-authentication'(api) {
    await freshKey(api)
    const none = await api.call('GET', '/v1/analytics/calls?granularity=daily', undefined, { key: '' })
    const invalid = await api.call('GET', '/v1/analytics/calls?timezone=Mars/Olympus', undefined, {
      key: `sk-svc-${'x'.repeat(40)}`,
    })
    return { none: outcome(none), invalid: outcome(invalid) }
  },

  async 'method-override-header-honoured'(api) {
    await freshKey(api)
    const agent = await api.agent('kept')
    const post = await api.call('POST', `/v1/agents/${agent}`, undefined, {
      headers: { 'x-http-method-override': 'DELETE' },
    })
    const after = await api.call('GET', `/v1/agents/${agent}`)
    return { post: [post.status, errorCode(post), post.headers.allow ?? null], after: after.status }
  },

  async 'percent-encoded-path-ids-not-decoded'(api) {
    await freshKey(api)
    const agent = await api.agent('encoded')
    const byId = await api.call('GET', `/v1/agents/${agent.replace('_', '%5F')}`)
    const slug = await api.call('GET', '/v1/integrations/google%5Fcalendar')
    return { agent: outcome(byId), slug: outcome(slug) }
  },

  async 'call-log-enum-filters-case-insensitive'(api) {
    await freshKey(api)
    const status = await api.call('GET', '/v1/call-logs?status=COMPLETED')
    const direction = await api.call('GET', '/v1/call-logs?direction=Inbound')
    return { status: outcome(status), direction: outcome(direction) }
  },

  async 'item-reads-ignore-unknown-query-parameters'(api) {
    await freshKey(api)
    const agent = await api.agent('a')
    const reads = await Promise.all(
      [
        `/v1/agents/${agent}?expand=voice`,
        '/v1/user?fields=email',
        '/v1/integrations/slack?include=config',
      ].map((path) => api.call('GET', path)),
    )
    return reads.map((answer) => [answer.status, errorCode(answer), answer.body?.error?.param ?? null])
  },

  async 'float-written-integers-refused'(api) {
    await freshKey(api)
    const made = await api.call('POST', '/v1/agents', undefined, {
      raw: '{"name":"f","voice":{"provider":"openai","voice_id":"alloy"},"llm":{"provider":"openai","model":"gpt-4o-mini","max_tokens":1e3},"max_call_duration_seconds":600.0}',
    })
    const agent = await api.agent('g')
    const patched = await api.call('PATCH', `/v1/agents/${agent}`, undefined, {
      raw: '{"max_call_duration_seconds": 9.0e2}',
    })
    return {
      made: [made.status, paramsOf(made), made.body?.max_call_duration_seconds ?? null],
      patched: [patched.status, patched.body?.max_call_duration_seconds ?? null],
    }
  },

  async 'string-false-turns-integration-on'(api) {
    await freshKey(api)
    const patched = await api.call('PATCH', '/v1/integrations/slack', { enabled: 'false' })
    const read = await api.call('GET', '/v1/integrations/slack')
    return { patched: [patched.status, paramsOf(patched)], enabled: read.body.enabled }
  },

  async 'null-ignored-on-agent-update'(api) {
    await freshKey(api)
    const agent = await api.agent('a', { description: 'front desk', first_message: 'Hello!' })
    const cleared = await api.call('PATCH', `/v1/agents/${agent}`, { description: null })
    const both = await api.call('PATCH', `/v1/agents/${agent}`, { first_message: null, name: 'b' })
    const read = await api.call('GET', `/v1/agents/${agent}`)
    return {
      cleared: [cleared.status, paramsOf(cleared)],
      both: both.status,
      read: [read.body.description, read.body.first_message, read.body.name],
    }
  },

  async 'long-system-prompt-truncated'(api) {
    await freshKey(api)
    const made = await api.call(
      'POST',
      '/v1/agents',
      agentBody('long', { system_prompt: 'p'.repeat(15_000) }),
    )
    const read = await api.call('GET', `/v1/agents/${made.body.id}`)
    return {
      made: made.status,
      answered: made.body.system_prompt.length,
      read: read.body.system_prompt.length,
    }
  },

  async 'astral-characters-lost-in-member-names'(api) {
    await freshKey(api)
    const member = await api.call('POST', '/v1/team-members', {
      email: 'zoe@live.test',
      name: 'Zoë 🎧 Lin 𝔸',
    })
    const read = await api.call('GET', `/v1/team-members/${member.body.id}`)
    return { answered: member.body.name, read: read.body.name }
  },

  async 'gmail-addresses-normalized'(api) {
    await freshKey(api)
    const first = await api.call('POST', '/v1/team-members', { email: 'Jo.Doe+ops@googlemail.com' })
    const second = await api.call('POST', '/v1/team-members', { email: 'jodoe@gmail.com' })
    return { first: [first.status, first.body.email], second: outcome(second) }
  },

  async 'empty-team-limit-means-default'(api) {
    await freshKey(api)
    const empty = await api.call('GET', '/v1/team-members?limit=')
    const bare = await api.call('GET', '/v1/team-members?limit')
    return { empty: outcome(empty), bare: outcome(bare) }
  },

  async 'team-page-after-cursor-in-id-order'(api) {
    await freshKey(api)
    const labels: Record<string, string> = {}
    for (let i = 1; i <= 8; i++) {
      const member = await api.call('POST', '/v1/team-members', { email: `m${i}@live.test` })
      labels[member.body.id] = `m${i}`
      await api.advance(1)
    }
    const first = await api.call('GET', '/v1/team-members?limit=1')
    const next = await api.call('GET', `/v1/team-members?limit=20&starting_after=${first.body.data[0].id}`)
    return { first: labelled(first, labels), next: labelled(next, labels) }
  },

  async 'newer-time-zone-names-refused'(api) {
    await freshKey(api)
    const kyiv = await api.call('GET', '/v1/analytics/calls?timezone=Europe/Kyiv&granularity=day')
    const kanton = await api.call('GET', '/v1/analytics/calls?timezone=Pacific/Kanton')
    return { kyiv: [kyiv.status, kyiv.body?.timezone ?? errorCode(kyiv)], kanton: outcome(kanton) }
  },

  async 'lowercase-timestamp-letters-refused'(api) {
    await freshKey(api)
    const lower = await api.call('GET', '/v1/call-logs?started_after=2026-03-01t00:00:00z')
    const before = await api.call('GET', '/v1/call-logs?started_before=2026-03-11t00:00:00Z')
    return { lower: outcome(lower), before: outcome(before) }
  },

  async 'connected-at-written-with-utc-offset'(api) {
    await freshKey(api)
    await api.advance(30)
    const patched = await api.call('PATCH', '/v1/integrations/twilio', {
      credentials: { account_sid: 'AC0123456789abcdef', auth_token: 'f3A9c0ffee1234567' },
    })
    const read = await api.call('GET', '/v1/integrations/twilio')
    const list = await api.call('GET', '/v1/integrations')
    const listed = list.body.data.find((i: { id: string }) => i.id === 'twilio')
    return {
      patched: patched.body.connected_at,
      read: read.body.connected_at,
      listed: listed?.connected_at ?? null,
    }
  },

  async 'group-avg-duration-integer-division'(api) {
    api.use(api.demoKey())
    const grouped = await api.call('GET', '/v1/analytics/calls?group_by=channel')
    return {
      top: grouped.body.totals.avg_duration_seconds,
      groups: grouped.body.groups.map((g: { value: string; totals: { avg_duration_seconds: number } }) => [
        g.value,
        g.totals.avg_duration_seconds,
      ]),
    }
  },

  async 'hourly-cost-in-single-precision'(api) {
    api.use(api.demoKey())
    const hourly = await api.call('GET', '/v1/analytics/calls?granularity=hour')
    const costs = hourly.body.series
      .map((bucket: { metrics: { total_cost_usd: number } }) => bucket.metrics.total_cost_usd)
      .filter((cost: number) => cost > 0)
    return { total: hourly.body.totals.total_cost_usd, first: costs.slice(0, 3) }
  },

  async 'unended-call-log-omits-null-fields'(api) {
    const account = await api.account()
    await api.key(account)
    const agent = await api.agent('a')
    const call = await api.startCall(account, agent, { duration_seconds: 120 })
    await api.advance(2)
    const ringing = await api.call('GET', `/v1/call-logs/${call}`)
    await api.advance(10)
    const talking = await api.call('GET', `/v1/call-logs/${call}`)
    return {
      ringing: [ringing.body.status, fieldsOf(ringing)],
      talking: [talking.body.status, fieldsOf(talking)],
    }
  },

  async 'member-update-answer-in-camel-case'(api) {
    await freshKey(api)
    const member = await api.call('POST', '/v1/team-members', { email: 'ed@live.test' })
    const patched = await api.call('PATCH', `/v1/team-members/${member.body.id}`, { role: 'editor' })
    return { status: patched.status, fields: fieldsOf(patched) }
  },

  async 'same-role-patch-answers-204'(api) {
    await freshKey(api)
    const member = await api.call('POST', '/v1/team-members', { email: 'vi@live.test', role: 'viewer' })
    const same = await api.call('PATCH', `/v1/team-members/${member.body.id}`, { role: 'viewer' })
    return { status: same.status, role: same.body?.role ?? null }
  },

  async 'patched-voice-speed-in-single-precision'(api) {
    await freshKey(api)
    const agent = await api.agent('a')
    const patched = await api.call('PATCH', `/v1/agents/${agent}`, { voice: { speed: 1.05 } })
    const read = await api.call('GET', `/v1/agents/${agent}`)
    const list = await api.call('GET', '/v1/agents')
    return {
      patched: patched.body.voice.speed,
      read: read.body.voice.speed,
      listed: list.body.data[0].voice.speed,
    }
  },
}

await showLive(faults, scenarios)

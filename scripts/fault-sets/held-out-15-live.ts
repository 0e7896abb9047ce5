/**
 * Shows that every fault of held-out fault set 15 is live: for each one, a short scenario (accounts and keys
 * provisioned through the control plane, simulated calls started there, then v1 requests sent as a client, a browser
 * or a proxy in front of the platform would send them, the mock clock moved where time matters) is run against a
 * fresh correct engine, again against another fresh correct engine (the scenario must observe the same thing twice:
 * nothing random leaks into it), and against a fresh engine wrapped in the fault. A fault is LIVE when its observation
 * differs from the correct one. Ordinary traffic (the first reads of every endpoint, a create and a read) is also run
 * through each fault, which should leave it unchanged. The engines' clocks are frozen at one instant and move only
 * when a scenario advances them, so that every run sees the same times
 * (`npx tsx scripts/fault-sets/held-out-15-live.ts`).
 */
import { faults } from '../../test/fault-sets/held-out-15.ts'
import {
  type Answer,
  type Api,
  agentBody,
  at,
  errorCode,
  freshKey,
  revoke,
  showLive,
} from './live-harness.ts'

// -------------------------------------------------------------------------------------------- helpers

/** What a client sees of an answer's form: status, media type, error code, Request-Id and rate-limit fields. */
const form = (answer: Answer) => [
  answer.status,
  answer.headers['content-type'] ?? null,
  errorCode(answer),
  /^req_[A-Za-z0-9]+$/.test(answer.headers['request-id'] ?? ''),
  answer.headers.ratelimit !== undefined,
]

const count = (answer: Answer) => answer.body?.data?.length ?? null

/** A browser's `Accept` for a navigation. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'

// -------------------------------------------------------------------------------------------- scenarios

const scenarios: Record<string, (api: Api) => Promise<unknown>> = {
  // --------------------------------------------------------------------------------------------- gateway
  async 'body-limit-answered-by-proxy'(api) {
    await freshKey(api)
    const big = JSON.stringify(agentBody('big', { system_prompt: 'x'.repeat(1_100_000) }))
    const withKey = await api.call('POST', '/v1/agents', undefined, { raw: big })
    const withoutKey = await api.call('POST', '/v1/agents', undefined, { raw: big, key: '' })
    const after = await api.call('GET', '/v1/user')
    return { with_key: form(withKey), without_key: form(withoutKey), after: after.headers.ratelimit }
  },

  async 'server-errors-replaced-by-proxy-page'(api) {
    await freshKey(api)
    const unavailable = await api.call('GET', '/v1/agents', undefined, { headers: { prefer: 'code=503' } })
    const internal = await api.call('GET', '/v1/user', undefined, { headers: { prefer: 'code=500' } })
    return {
      unavailable: [...form(unavailable), unavailable.headers['retry-after'] ?? null],
      internal: form(internal),
    }
  },

  async 'missing-key-answered-by-gateway'(api) {
    await freshKey(api)
    const none = await api.call('GET', '/v1/user', undefined, { key: '' })
    const unknown = await api.call('GET', '/v1/user', undefined, { key: `sk-svc-${'0'.repeat(40)}` })
    return [none, unknown].map((answer) => [
      ...form(answer),
      answer.headers['www-authenticate'] ?? null,
      answer.body?.error?.type ?? null,
    ])
  },

  async 'forwarded-for-trusted-from-client'(api) {
    const account = await api.account()
    const elsewhere = await api.keyRecord(account, { restrictions: { allowed_ips: ['203.0.113.0/24'] } })
    const local = await api.keyRecord(account, { restrictions: { allowed_ips: ['127.0.0.1/32'] } })
    const send = (key: string, forwarded: string) =>
      api.call('GET', '/v1/user', undefined, { key, headers: { 'x-forwarded-for': forwarded } })
    const spoofed = await send(elsewhere.value, '203.0.113.7')
    const proxied = await send(local.value, '198.51.100.4, 127.0.0.1')
    return [spoofed, proxied].map((answer) => [answer.status, errorCode(answer)])
  },

  async 'client-request-id-kept'(api) {
    await freshKey(api)
    const traced = { headers: { 'x-request-id': 'trace-42' } }
    const first = await api.call('GET', '/v1/user', undefined, traced)
    const second = await api.call('GET', '/v1/user', undefined, traced)
    const missing = await api.call('GET', '/v1/agents/agt_0000000000000000', undefined, traced)
    return {
      well_formed: [first, second, missing].map((answer) =>
        /^req_[A-Za-z0-9]+$/.test(answer.headers['request-id'] ?? ''),
      ),
      distinct: first.headers['request-id'] !== second.headers['request-id'],
      error_matches: missing.body?.error?.request_id === missing.headers['request-id'],
    }
  },

  async 'location-from-forwarded-host'(api) {
    await freshKey(api)
    const forwarded = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' }
    const agent = await api.call('POST', '/v1/agents', agentBody('front desk'), { headers: forwarded })
    const member = await api.call(
      'POST',
      '/v1/team-members',
      { email: 'kim@live.test' },
      { headers: forwarded },
    )
    const origin = (answer: Answer) =>
      new URL(answer.headers.location ?? '', 'http://relative.invalid').origin
    return [agent, member].map((answer) => [answer.status, origin(answer)])
  },

  async 'burst-429-from-gateway-plugin'(api) {
    await freshKey(api, { plan: 'free', limits: { hourly: 100, burst: 2 } })
    await api.call('GET', '/v1/user')
    await api.call('GET', '/v1/user')
    const refused = await api.call('GET', '/v1/user')
    return [
      ...form(refused),
      refused.body?.error?.policy ?? null,
      refused.body?.error?.retry_after ?? null,
      refused.headers['retry-after'] ?? null,
      refused.headers['ratelimit-policy'] ?? null,
    ]
  },

  async 'response-headers-allowlist-drops-replay-and-allow'(api) {
    await freshKey(api)
    const send = () =>
      api.call('POST', '/v1/agents', agentBody('once'), { headers: { 'idempotency-key': 'once-1' } })
    await send()
    const replay = await send()
    const put = await api.call('PUT', '/v1/user', { name: 'x' })
    return {
      replay: [replay.status, replay.headers['idempotent-replayed'] ?? null],
      put: [put.status, errorCode(put), put.headers.allow ?? null],
    }
  },

  async 'encoded-plus-in-query-becomes-space'(api) {
    const account = await freshKey(api)
    await api.startCall(account, await api.agent('a'))
    await api.advance(200)
    const logs = await api.call('GET', '/v1/call-logs?started_after=2026-03-10T17:00:00%2B05:30')
    const west = await api.call('GET', '/v1/call-logs?started_after=2026-03-10T07:00:00-05:00')
    const analytics = await api.call(
      'GET',
      '/v1/analytics/calls?start=2026-03-10T12:00:00%2B01:00&granularity=total',
    )
    return {
      plus: [logs.status, errorCode(logs), count(logs)],
      minus: [west.status, count(west)],
      analytics: [analytics.status, errorCode(analytics), analytics.body?.totals?.call_count ?? null],
    }
  },

  async 'waf-blocks-bodies-over-8-kb'(api) {
    await freshKey(api)
    const long = await api.call(
      'POST',
      '/v1/agents',
      agentBody('long', { system_prompt: 'Be brief. '.repeat(900) }),
    )
    const short = await api.call('POST', '/v1/agents', agentBody('short', { system_prompt: 'Be brief.' }))
    const agents = await api.call('GET', '/v1/agents')
    return { long: form(long), short: short.status, agents: count(agents) }
  },

  // ------------------------------------------------------------------------------------------------ cors
  async 'preflight-omits-idempotency-key'(api) {
    const preflight = await api.call('OPTIONS', '/v1/agents', undefined, {
      key: '',
      headers: {
        origin: 'https://app.live.test',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
    })
    const allowed = (preflight.headers['access-control-allow-headers'] ?? '').toLowerCase()
    return [preflight.status, allowed.includes('idempotency-key'), allowed.includes('authorization')]
  },

  async 'preflight-answered-on-any-path'(api) {
    const preflight = (path: string) =>
      api.call('OPTIONS', path, undefined, {
        key: '',
        headers: { origin: 'https://app.live.test', 'access-control-request-method': 'GET' },
      })
    const unknown = await preflight('/v1/agent')
    const versioned = await preflight('/v2/agents')
    return [unknown, versioned].map((answer) => [answer.status, errorCode(answer)])
  },

  // ---------------------------------------------------------------------------------------------- routing
  async 'put-routed-as-patch'(api) {
    await freshKey(api)
    const agent = await api.agent('before')
    const put = await api.call('PUT', `/v1/agents/${agent}`, { name: 'after' })
    const read = await api.call('GET', `/v1/agents/${agent}`)
    const slack = await api.call('PUT', '/v1/integrations/slack', { enabled: true })
    return {
      put: [put.status, errorCode(put)],
      name: read.body.name,
      slack: [slack.status, errorCode(slack)],
    }
  },

  async 'routes-matched-case-insensitively'(api) {
    await freshKey(api)
    const paths = ['/v1/Agents', '/v1/TEAM-MEMBERS', '/v1/Analytics/Calls', '/v1/agents']
    const answers = []
    for (const path of paths) answers.push(await api.call('GET', path))
    return answers.map((answer) => [answer.status, errorCode(answer)])
  },

  // ------------------------------------------------------------------------------------------ negotiation
  async 'route-errors-as-html-for-browsers'(api) {
    await freshKey(api)
    const browser = { headers: { accept: BROWSER_ACCEPT } }
    const unknown = await api.call('GET', '/v1/agentz', undefined, browser)
    const method = await api.call('DELETE', '/v1/user', undefined, browser)
    const client = await api.call('GET', '/v1/agentz', undefined, { headers: { accept: 'application/json' } })
    return [unknown, method, client].map(form)
  },

  async 'xml-when-accept-prefers-it'(api) {
    await freshKey(api)
    const browser = await api.call('GET', '/v1/user', undefined, { headers: { accept: BROWSER_ACCEPT } })
    const xml = await api.call('GET', '/v1/agents/agt_0000000000000000', undefined, {
      headers: { accept: 'application/xml' },
    })
    const axios = await api.call('GET', '/v1/user', undefined, {
      headers: { accept: 'application/json, text/plain, */*' },
    })
    return [browser, xml, axios].map((answer) => [
      answer.status,
      answer.headers['content-type'] ?? null,
      typeof answer.body,
    ])
  },

  // ---------------------------------------------------------------------------------------- query parsing
  async 'query-names-bound-case-insensitively'(api) {
    await freshKey(api)
    for (const name of ['a', 'b', 'c']) await api.agent(name)
    const limited = await api.call('GET', '/v1/agents?Limit=1')
    const grouped = await api.call('GET', '/v1/analytics/calls?Granularity=total')
    return {
      agents: [limited.status, errorCode(limited), limited.body?.error?.param ?? null, count(limited)],
      analytics: [grouped.status, errorCode(grouped), grouped.body?.granularity ?? null],
    }
  },

  async 'write-routes-ignore-query-string'(api) {
    await freshKey(api)
    const dry = await api.call('POST', '/v1/agents?dry_run=true', agentBody('dry'))
    const agents = await api.call('GET', '/v1/agents')
    return { dry: [dry.status, errorCode(dry), dry.body?.error?.param ?? null], agents: count(agents) }
  },

  // ----------------------------------------------------------------------------------------- body parsing
  async 'trailing-data-after-body-ignored'(api) {
    await freshKey(api)
    const two = await api.call('POST', '/v1/team-members', undefined, {
      raw: '{"email": "x@live.test"} {"email": "y@live.test"}',
    })
    const bracket = await api.call('POST', '/v1/team-members', undefined, {
      raw: '{"email": "z@live.test"}]',
    })
    const team = await api.call('GET', '/v1/team-members')
    return {
      two: [two.status, errorCode(two)],
      bracket: [bracket.status, errorCode(bracket)],
      team: count(team),
    }
  },

  async 'form-encoded-bodies-accepted'(api) {
    await freshKey(api)
    const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' }
    const invite = await api.call('POST', '/v1/team-members', undefined, {
      raw: 'email=kim%40live.test&role=admin',
      headers: formHeaders,
    })
    const team = await api.call('GET', '/v1/team-members')
    return { invite: [invite.status, errorCode(invite)], team: count(team) }
  },

  async 'proto-keys-refused-by-body-parser'(api) {
    await freshKey(api)
    const raw = JSON.stringify(agentBody('tagged')).replace(
      '{',
      '{"metadata": {"__proto__": "legacy-import"},',
    )
    const created = await api.call('POST', '/v1/agents', undefined, { raw })
    return [created.status, errorCode(created), Object.keys(created.body?.metadata ?? {})]
  },

  async 'empty-strings-converted-to-null'(api) {
    await freshKey(api)
    const created = await api.call(
      'POST',
      '/v1/agents',
      agentBody('quiet', { first_message: '', description: '' }),
    )
    const cleared = await api.call('PATCH', `/v1/agents/${created.body.id}`, { system_prompt: '' })
    return {
      created: [created.status, created.body.first_message, created.body.description],
      cleared: [cleared.status, errorCode(cleared), cleared.body?.system_prompt ?? null],
    }
  },

  async 'bodies-html-escaped-by-xss-filter'(api) {
    await freshKey(api)
    const created = await api.call(
      'POST',
      '/v1/agents',
      agentBody('R&D <front desk>', { system_prompt: 'Say "hi" & keep it short.' }),
    )
    const read = await api.call('GET', `/v1/agents/${created.body.id}`)
    return [created.status, read.body.name, read.body.system_prompt]
  },

  async 'type-errors-answered-by-model-binder'(api) {
    await freshKey(api)
    const typed = await api.call(
      'POST',
      '/v1/agents',
      agentBody('typed', { max_call_duration_seconds: '600' }),
    )
    const ranged = await api.call('POST', '/v1/agents', agentBody('ranged', { max_call_duration_seconds: 5 }))
    return [typed, ranged].map((answer) => [
      answer.status,
      answer.headers['content-type'] ?? null,
      errorCode(answer),
      answer.body?.title ?? null,
    ])
  },

  // ----------------------------------------------------------------------------------------------- caches
  async 'analytics-cache-key-without-query'(api) {
    await freshKey(api)
    const daily = await api.call('GET', '/v1/analytics/calls?granularity=day')
    const hourly = await api.call('GET', '/v1/analytics/calls?start=2026-03-10T00:00:00Z&granularity=hour')
    return [daily, hourly].map((answer) => [
      answer.status,
      answer.body?.granularity ?? null,
      answer.body?.start ?? null,
      answer.body?.series?.length ?? null,
      answer.headers.ratelimit,
    ])
  },

  async 'integrations-replayed-from-edge-cache'(api) {
    const account = await api.account()
    const key = await api.keyRecord(account)
    api.use(key.value)
    const first = await api.call('GET', '/v1/integrations/slack')
    const second = await api.call('GET', '/v1/integrations/slack')
    await revoke(api, key.id)
    const revoked = await api.call('GET', '/v1/integrations/slack')
    return {
      same_request_id: first.headers['request-id'] === second.headers['request-id'],
      ratelimit: [first.headers.ratelimit, second.headers.ratelimit],
      revoked: [revoked.status, errorCode(revoked)],
    }
  },

  async 'agent-read-stale-while-revalidate'(api) {
    await freshKey(api)
    const agent = await api.agent('before')
    const name = async () => {
      const read = await api.call('GET', `/v1/agents/${agent}`)
      return read.status === 200 ? read.body.name : read.status
    }
    const names = [await name()]
    await api.call('PATCH', `/v1/agents/${agent}`, { name: 'after' })
    names.push(await name())
    await api.advance(10)
    names.push(await name(), await name())
    await api.advance(10)
    await api.call('DELETE', `/v1/agents/${agent}`)
    names.push(await name())
    return names
  },

  // ---------------------------------------------------------------------------------------- serialisation
  async 'call-log-cost-as-decimal-string'(api) {
    const account = await freshKey(api)
    const call = await api.startCall(account, await api.agent('a'), { duration_seconds: 30 })
    await api.advance(300)
    const read = await api.call('GET', `/v1/call-logs/${call}`)
    const list = await api.call('GET', '/v1/call-logs')
    return { read: [read.body.status, typeof read.body.cost_usd], list: typeof list.body.data[0].cost_usd }
  },

  async 'analytics-range-echoed-as-sent'(api) {
    await freshKey(api)
    const answer = await api.call(
      'GET',
      '/v1/analytics/calls?start=2026-03-10T09:00:00%2B01:00&end=2026-03-10t12:00:00z&granularity=hour',
    )
    return [answer.status, answer.body.start, answer.body.end, answer.body.series.length]
  },

  async 'group-bucket-nulls-omitted'(api) {
    const account = await freshKey(api)
    await api.startCall(account, await api.agent('a'))
    await api.advance(1)
    const grouped = await api.call(
      'GET',
      `/v1/analytics/calls?start=${at(-3600)}&granularity=hour&group_by=channel`,
    )
    const group = grouped.body.groups[0]
    return {
      totals: Object.keys(grouped.body.totals).length,
      group_totals: Object.keys(group.totals),
      group_buckets: group.series.map((bucket: { metrics: object }) => Object.keys(bucket.metrics).length),
    }
  },
}

await showLive(faults, scenarios)

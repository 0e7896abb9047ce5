import { describe, expect, it } from 'vitest'
import type { EngineRequest, EngineResponse } from '../mocks/engine/types.ts'
import type { Fault } from './reliability/support/faulty-handler.ts'
import { runCheckAgainst } from './support/check-against-fault.ts'

const BASE_URL = 'http://faults.test/v1'

type Body = Record<string, unknown>
const bodyOf = (response: EngineResponse) => response.body as Body
/** The `error` object of an error body, if there is one. */
const errorOf = (body: unknown) => (body as { error?: Body } | undefined)?.error
const pathOf = (request: EngineRequest) => request.url.split('?')[0] ?? ''

/** Rewrites the body of the answers `when` selects. */
const onAnswers = (
  when: (request: EngineRequest, response: EngineResponse) => boolean,
  change: (body: Body) => void,
): Fault => ({
  response(response, request) {
    if (when(request, response) && response.body && typeof response.body === 'object')
      change(bodyOf(response))
    return response
  },
})

/** `stored` given out again as the answer to another request: its own Request-Id, as every answer has. */
function again(
  stored: EngineResponse,
  current: EngineResponse,
  extra: Record<string, string> = {},
): EngineResponse {
  const copy = structuredClone(stored)
  const requestId = current.headers['request-id'] ?? ''
  const error = errorOf(copy.body)
  if (error?.request_id !== undefined) error.request_id = requestId
  return { ...copy, headers: { ...copy.headers, ...extra, 'request-id': requestId } }
}

/** Idempotency done by a cache in front of the implementation, keyed as `keyOf` says, kept as `keep` says. */
function cachingIdempotency(options: {
  keyOf: (request: EngineRequest) => string
  keep: (response: EngineResponse) => boolean
}): Fault {
  const stored = new Map<string, EngineResponse>()
  return {
    response(response, request) {
      const idempotencyKey = request.headers['idempotency-key']
      if (request.method !== 'POST' || idempotencyKey === undefined) return response
      const key = options.keyOf(request)
      const hit = stored.get(key)
      if (hit) return again(hit, response, { 'idempotent-replayed': 'true' })
      if (options.keep(response)) stored.set(key, structuredClone(response))
      return response
    },
  }
}

/** A per-key limiter seen from outside: a key that made fewer requests than the burst is never refused. */
function perKeyBudget(): Fault {
  const admitted = new Map<string, EngineResponse>()
  const counts = new Map<string, number>()
  return {
    response(response, request) {
      const key = request.headers.authorization ?? ''
      if (!pathOf(request).startsWith('/v1/')) return response
      const count = (counts.get(key) ?? 0) + 1
      counts.set(key, count)
      if (response.status === 200) admitted.set(key, structuredClone(response))
      const burst = Number(/"burst";q=(\d+)/.exec(response.headers['ratelimit-policy'] ?? '')?.[1])
      const last = admitted.get(key)
      if (response.status !== 429 || count > burst || !last) return response
      const { 'retry-after': _retryAfter, ...headers } = response.headers
      return { ...again(last, response), headers: { ...last.headers, ...headers } }
    },
  }
}

const DAY_MS = 86_400_000
const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

/**
 * Analytics of the default range (the last 7 days) computed over 8: the answer still states the 7 days, its
 * first day is clipped to them, but the totals and that day count the calls of the day before the range.
 */
function widenedAnalytics(): Fault {
  const widened = new WeakSet<EngineRequest>()
  return {
    request(request) {
      const url = new URL(request.url, 'http://faulty.test')
      if (request.method !== 'GET' || url.pathname !== '/v1/analytics/calls' || url.searchParams.has('start'))
        return request
      url.searchParams.set('start', isoSeconds(Date.now() - 8 * DAY_MS))
      const sent = { ...request, url: url.pathname + url.search }
      widened.add(sent)
      return sent
    },
    response(response, request) {
      if (!widened.has(request) || response.status !== 200) return response
      const body = bodyOf(response) as { start: string; end: string; series: Body[] }
      const start = Date.parse(body.end) - 7 * DAY_MS
      body.start = isoSeconds(start)
      body.series = body.series.filter((bucket) => Date.parse(String(bucket.end)) > start)
      const first = body.series[0]
      if (first) first.start = body.start
      return response
    },
  }
}

/**
 * Each new check, against an implementation with a fault of the kind it was written for (the mock wrapped
 * in test code that rewrites its requests or answers; the engine untouched): the check fails. The same
 * wrapping without a fault passes, so a failure is the fault's doing.
 */
const CASES: { check: string; shows: string; fault: string; apply: () => Fault }[] = [
  {
    check: 'resources/agents/timestamps',
    shows: 'updated_at later',
    fault: 'updated_at not moved by a PATCH',
    apply: () =>
      onAnswers(
        (request) => request.method === 'PATCH' && pathOf(request).startsWith('/v1/agents/'),
        (body) => {
          body.updated_at = body.created_at
        },
      ),
  },
  {
    check: 'resources/team-members/timestamps',
    shows: 'invited_at kept',
    fault: 'invited_at rewritten when the role changes',
    apply: () =>
      onAnswers(
        (request) => request.method === 'PATCH' && pathOf(request).startsWith('/v1/team-members/'),
        (body) => {
          const later = new Date(Date.parse(String(body.invited_at)) + 5000)
          body.invited_at = later.toISOString().replace(/\.\d{3}Z$/, 'Z')
        },
      ),
  },
  {
    check: 'resources/integrations/timestamps',
    shows: 'connected_at kept',
    fault: 'connected_at moved by every update',
    apply: () =>
      onAnswers(
        (request) => request.method === 'PATCH' && pathOf(request).startsWith('/v1/integrations/'),
        (body) => {
          if (body.status === 'connected') body.connected_at = body.updated_at
        },
      ),
  },
  {
    check: 'responses/unknown-paths',
    shows: 'GET /user/extra',
    fault: 'trailing segments after /user ignored',
    apply: () => ({
      request: (request) => ({ ...request, url: request.url.replace(/^\/v1\/user\/.*$/, '/v1/user') }),
    }),
  },
  {
    check: 'responses/other-versions',
    shows: 'GET /../v2/user',
    fault: 'any version segment served as v1',
    apply: () => ({
      request: (request) => ({ ...request, url: request.url.replace(/^\/(?!v1\/|_mock)[^/]+\//, '/v1/') }),
    }),
  },
  {
    check: 'responses/undocumented-methods',
    shows: 'Allow without DELETE',
    fault: 'Allow naming the refused method too',
    apply: () => ({
      response(response, request) {
        if (response.status === 405) response.headers.allow = `${response.headers.allow}, ${request.method}`
        return response
      },
    }),
  },
  {
    check: 'authentication/case-both-ways',
    shows: '"Bearerx"',
    fault: 'any scheme accepted in place of Bearer',
    apply: () => ({
      request(request) {
        const authorization = request.headers.authorization
        if (authorization)
          request.headers.authorization = authorization.replace(/^[A-Za-z]+[\s:]+/, 'Bearer ')
        return request
      },
    }),
  },
  {
    check: 'resources/team-members/email-case',
    shows: 'status 409',
    fault: 'e-mail addresses unique case-sensitively',
    apply: () => ({
      request(request) {
        if (request.method !== 'POST' || pathOf(request) !== '/v1/team-members' || !request.body)
          return request
        const body = JSON.parse(request.body) as Body
        const email = String(body.email)
        if (email !== email.toLowerCase())
          body.email = email.replace('@', `+${email.replace(/[^A-Z]/g, '')}@`)
        return { ...request, body: JSON.stringify(body) }
      },
    }),
  },
  {
    check: 'resources/idempotency/failed-first',
    shows: 'runs again',
    fault: 'error answers stored and replayed',
    apply: () => cachingIdempotency({ keyOf: (r) => `${r.headers['idempotency-key']}`, keep: () => true }),
  },
  {
    check: 'resources/idempotency/account-scope',
    shows: 'another key of the same account',
    fault: 'Idempotency-Key scoped to the API key instead of the account',
    apply: () => ({
      request(request) {
        const key = request.headers['idempotency-key']
        if (key !== undefined)
          request.headers['idempotency-key'] = `${key}-${(request.headers.authorization ?? '').slice(-6)}`
        return request
      },
    }),
  },
  {
    check: 'resources/idempotency/expiry',
    shows: 'after 24 hours',
    fault: 'Idempotency-Key kept forever',
    apply: () =>
      cachingIdempotency({
        keyOf: (r) => `${r.headers['idempotency-key']}`,
        keep: (response) => response.status < 300,
      }),
  },
  {
    check: 'responses/cors',
    shows: 'Request-Id',
    fault: 'Request-Id not exposed to pages',
    apply: () => ({
      response(response) {
        const exposed = response.headers['access-control-expose-headers']
        if (exposed) response.headers['access-control-expose-headers'] = exposed.replace('Request-Id, ', '')
        return response
      },
    }),
  },
  {
    check: 'authorization/allowed-ips',
    shows: '403',
    fault: 'allowed_ips not enforced',
    apply: () => ({
      request(request) {
        if (request.method !== 'POST' || !/^\/_mock\/accounts\/[^/]+\/keys$/.test(pathOf(request)))
          return request
        const body = JSON.parse(request.body ?? '{}') as { restrictions?: Body }
        delete body.restrictions?.allowed_ips
        return { ...request, body: JSON.stringify(body) }
      },
    }),
  },
  {
    check: 'authorization/permission-groups',
    shows: 'call-logs',
    fault: 'the read group granting agents:read only',
    apply: () => ({
      request(request) {
        if (request.method !== 'POST' || !request.body?.includes('"permissions":["read"]')) return request
        return {
          ...request,
          body: request.body.replace('"permissions":["read"]', '"permissions":["agents:read"]'),
        }
      },
    }),
  },
  {
    check: 'resources/agents/unknown',
    shows: 'part of an API key',
    fault: 'the 404 message quoting an ID shaped like a key from its fifth character on',
    apply: () => ({
      response(response, request) {
        const raw = /^\/v1\/agents\/(\S+)$/.exec(pathOf(request))?.[1]
        const decoded = raw && decodeURIComponent(decodeURIComponent(raw))
        const id = decoded && /^[sp]k-svc-/.test(decoded) ? decoded : undefined
        const error = errorOf(response.body)
        if (response.status === 404 && id && error) error.message = `No agent with id '...${id.slice(4)}'.`
        return response
      },
    }),
  },
  {
    check: 'authentication/expires-at',
    shows: 'once the clock has passed',
    fault: 'expires_at not enforced (dropped when the key is made)',
    apply: () => ({
      request(request) {
        if (request.method !== 'POST' || !/\/keys$/.test(pathOf(request)) || !request.body) return request
        return { ...request, body: request.body.replace(/"expires_at":"[^"]*"/, '"expires_at":null') }
      },
    }),
  },
  {
    check: 'rate-limits/free/shared-keys',
    shows: 'for every key',
    fault: 'a budget per key',
    apply: perKeyBudget,
  },
  {
    check: 'resources/agents/update',
    shows: 'the updated agent, once',
    fault: 'the list serving an agent as it was created, not as it was updated',
    apply: () => {
      const created = new Map<string, unknown>()
      return {
        response(response, request) {
          const body = response.body as { id?: string; data?: Body[] } | undefined
          if (request.method === 'POST' && pathOf(request) === '/v1/agents' && body?.id)
            created.set(body.id, structuredClone(body))
          if (request.method === 'GET' && pathOf(request) === '/v1/agents' && Array.isArray(body?.data))
            body.data = body.data.map((agent) => (created.get(String(agent.id)) as Body | undefined) ?? agent)
          return response
        },
      }
    },
  },
  {
    check: 'rate-limits/free/hourly',
    shows: 'the largest t of the exhausted windows',
    fault: "the burst window's Retry-After when both windows run out on the same request",
    apply: () => ({
      response(response) {
        const burst = /"burst";r=0;t=(\d+)/.exec(response.headers.ratelimit ?? '')?.[1]
        const error = errorOf(response.body)
        if (response.status !== 429 || burst === undefined || !error) return response
        response.headers['retry-after'] = burst
        error.retry_after = Number(burst)
        return response
      },
    }),
  },
  {
    check: 'rate-limits/free/header-meaning',
    shows: 'X-RateLimit-Reset',
    fault: 'X-RateLimit-Reset in seconds from now instead of epoch seconds',
    apply: () => ({
      response(response) {
        const reset = /"burst";r=\d+;t=(\d+)/.exec(response.headers.ratelimit ?? '')?.[1]
        if (reset !== undefined && response.headers['x-ratelimit-reset'])
          response.headers['x-ratelimit-reset'] = reset
        return response
      },
    }),
  },
  {
    check: 'rate-limits/pro/header-meaning',
    shows: "a 429's Retry-After counted on the target's clock from the first request of the window",
    fault:
      'a 429 telling a whole window (Retry-After and t of 60 s) instead of when the oldest request leaves',
    apply: () => ({
      response(response) {
        const error = errorOf(response.body)
        if (response.status !== 429 || error?.policy !== 'burst') return response
        response.headers.ratelimit = (response.headers.ratelimit ?? '').replace(
          /"burst";r=0;t=\d+/,
          '"burst";r=0;t=60',
        )
        response.headers['retry-after'] = '60'
        error.retry_after = 60
        return response
      },
    }),
  },
  {
    check: 'resources/relations/filtered-pages',
    shows: 'missing',
    fault: 'a starting_after cursor that skips the object just after it',
    apply: () =>
      onAnswers(
        (request) => request.method === 'GET' && /[?&]starting_after=/.test(request.url),
        (body) => {
          if (Array.isArray(body.data)) body.data = body.data.slice(1)
        },
      ),
  },
  {
    check: 'resources/relations/filtered-pages',
    shows: 'missing',
    fault: 'an ending_before cursor that skips the object just before it',
    apply: () =>
      onAnswers(
        (request) => request.method === 'GET' && /[?&]ending_before=/.test(request.url),
        (body) => {
          if (Array.isArray(body.data)) body.data = body.data.slice(0, -1)
        },
      ),
  },
  {
    check: 'resources/relations/filtered-pages',
    shows: 'missing',
    fault: 'a filter that drops one matching call log from each page',
    apply: () =>
      onAnswers(
        (request) =>
          request.method === 'GET' &&
          pathOf(request) === '/v1/call-logs' &&
          /[?&](status|direction|agent_id|started_after|started_before|min_duration_seconds|max_duration_seconds)=/.test(
            request.url,
          ),
        (body) => {
          if (Array.isArray(body.data) && body.data.length > 1) body.data.splice(1, 1)
        },
      ),
  },
  {
    check: 'resources/relations/objects-and-entries',
    shows: 'metadata',
    fault: 'list entries of agents without their metadata',
    apply: () =>
      onAnswers(
        (request) => request.method === 'GET' && pathOf(request) === '/v1/agents',
        (body) => {
          for (const agent of (body.data as Body[] | undefined) ?? []) agent.metadata = {}
        },
      ),
  },
  {
    check: 'resources/relations/head',
    shows: 'ratelimit',
    fault: 'HEAD answered without the rate-limit headers GET has',
    apply: () => ({
      response(response, request) {
        if (request.method !== 'HEAD') return response
        for (const name of Object.keys(response.headers))
          if (name.includes('ratelimit')) delete response.headers[name]
        return response
      },
    }),
  },
  {
    check: 'resources/relations/head',
    shows: 'status 200',
    fault: 'HEAD not routed: 405 where GET answers',
    apply: () => ({
      response(response, request) {
        if (request.method !== 'HEAD') return response
        return { ...response, status: 405, headers: { ...response.headers, allow: 'GET' } }
      },
    }),
  },
  {
    check: 'resources/relations/analytics-and-logs',
    shows: 'call_count',
    fault: 'analytics counting the calls of a day before the range',
    apply: widenedAnalytics,
  },
  {
    check: 'resources/relations/equivalent-requests',
    shows: 'the same body',
    fault: 'a timestamp with an offset read as if it were UTC',
    apply: () => ({
      request: (request) => ({ ...request, url: request.url.replace(/(\d)-05(%3A|:)00(?=&|$)/gi, '$1Z') }),
    }),
  },
  {
    check: 'bad-input/unknown-ids/agents',
    shows: 'invalid_parameter',
    fault: 'unknown query parameters ignored on DELETE',
    apply: () => ({
      request: (request) =>
        request.method === 'DELETE' ? { ...request, url: request.url.replace(/\?.*$/, '') } : request,
    }),
  },
  {
    check: 'bad-input/unknown-ids/team-members',
    shows: '405',
    fault: 'the object looked up before the method: 404 in place of 405',
    apply: () => ({
      response(response, request) {
        if (response.status !== 405 || !pathOf(request).startsWith('/v1/team-members/')) return response
        const { allow: _allow, ...headers } = response.headers
        const body = {
          error: {
            type: 'not_found_error',
            code: 'resource_not_found',
            message: 'No such team member.',
            request_id: headers['request-id'],
          },
        }
        return { ...response, status: 404, headers, body }
      },
    }),
  },
  {
    check: 'authentication/writes-without-key',
    shows: '401',
    fault: 'a DELETE without a key answered 404 (the object looked up before the key)',
    apply: () => ({
      response(response, request) {
        if (request.method !== 'DELETE' || request.headers.authorization !== undefined) return response
        return {
          status: 404,
          headers: { 'content-type': 'application/json', 'request-id': 'req_0faulty0' },
          body: { error: { type: 'not_found_error', code: 'resource_not_found', message: 'Not found.' } },
        }
      },
    }),
  },
]

const runCheck = (id: string, fault: Fault) => runCheckAgainst(id, fault, BASE_URL)

describe('the contract suite against faults it was strengthened for', () => {
  it.each(CASES)('$check fails when $fault', async ({ check, apply }) => {
    const outcome = await runCheck(check, apply())
    if (process.env.SHOW_FAILURES)
      console.log(check, '::', outcome.failure?.expected, '::', outcome.failure?.actual)
    expect(outcome.status, outcome.reason).toBe('failed')
  })

  it.each([...new Set(CASES.map((c) => c.check))])(
    '%s passes through the same wrapping without a fault',
    async (id) => {
      const outcome = await runCheck(id, {})
      expect(outcome.failure?.actual ?? outcome.reason, id).toBeUndefined()
      expect(outcome.status).toBe('passed')
    },
  )
})

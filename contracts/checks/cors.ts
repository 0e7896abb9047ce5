import type { Exchange } from '../http/exchange.ts'
import { ensure, expectError, expectStatus } from './failure.ts'
import { scratchAccount } from './fixtures.ts'
import type { CheckCallInput, CheckContext, ContractCheck } from './types.ts'

const ORIGIN = 'https://contract-suite-app.example'

/** The comma-separated tokens of a header, lower-cased. */
const tokens = (exchange: Exchange, name: string) =>
  (exchange.response.headers[name] ?? '')
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter(Boolean)

function expectListed(exchange: Exchange, name: string, wanted: readonly string[], why: string): void {
  const got = tokens(exchange, name)
  for (const want of wanted)
    ensure(
      got.includes(want.toLowerCase()),
      `${name} listing ${want} ${why}`,
      JSON.stringify(exchange.response.headers[name] ?? null),
      exchange,
    )
}

function expectOrigin(exchange: Exchange, why: string): void {
  const allowed = exchange.response.headers['access-control-allow-origin']
  ensure(
    allowed === ORIGIN || allowed === '*',
    `Access-Control-Allow-Origin ${ORIGIN} ${why}`,
    JSON.stringify(allowed ?? null),
    exchange,
  )
}

const preflight = (ctx: CheckContext, path: string, method: string) =>
  ctx.call({
    method: 'OPTIONS',
    path,
    key: null,
    headers: {
      origin: ORIGIN,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization, content-type, idempotency-key',
    },
    conformance: false,
  })

/**
 * The contract's CORS promise (docs/decisions/001-general.md), which it makes for the standalone mock: preflights
 * answered (204, unauthenticated, uncounted) for documented paths with the allowed methods and request
 * headers, 404 for others; answers to a page's requests readable by it, errors included, with the
 * documented headers exposed.
 */
const cors: ContractCheck = {
  id: 'responses/cors',
  area: 'responses',
  group: 'Headers',
  title:
    'answers CORS preflights for documented paths (204, methods, headers) and lets a page read answers and errors with the documented headers exposed',
  async run(ctx) {
    if (!ctx.mock)
      return ctx.skip('CORS is promised by the standalone mock only (docs/decisions/001-general.md)')
    for (const [path, methods] of [
      ['/agents', ['GET', 'POST']],
      ['/agents/agt_0ContractSuiteNone0', ['GET', 'PATCH', 'DELETE']],
      ['/user', ['GET']],
    ] as const) {
      const answer = await preflight(ctx, path, methods[0])
      expectStatus(answer, 204, `for a preflight of ${path}`)
      expectOrigin(answer, `on the preflight of ${path}`)
      expectListed(answer, 'access-control-allow-methods', methods, `for ${path}`)
      expectListed(
        answer,
        'access-control-allow-headers',
        ['Authorization', 'Content-Type', 'Idempotency-Key'],
        `for ${path}`,
      )
      ensure(
        answer.response.headers.ratelimit === undefined,
        'no RateLimit on a preflight (not authenticated, not counted)',
        String(answer.response.headers.ratelimit),
        answer,
      )
      ensure(
        /^req_/.test(answer.response.headers['request-id'] ?? ''),
        'a Request-Id on a preflight too (docs/decisions/001-general.md: every response carries one)',
        JSON.stringify(answer.response.headers['request-id'] ?? null),
        answer,
      )
    }
    const unknown = await preflight(ctx, '/no-such-resource', 'GET')
    expectStatus(unknown, 404, 'for a preflight of a path outside the contract')
    const exposed = ['Request-Id', 'RateLimit', 'RateLimit-Policy', 'Retry-After']
    const read = await ctx.call({
      method: 'GET',
      path: '/user',
      headers: { origin: ORIGIN },
      operationId: 'getUser',
    })
    expectStatus(read, 200)
    expectOrigin(read, 'on an answer to a page')
    expectListed(read, 'access-control-expose-headers', exposed, 'on an answer to a page')
    const refused = await ctx.call({
      method: 'GET',
      path: '/user',
      key: null,
      headers: { origin: ORIGIN },
      operationId: 'getUser',
    })
    expectError(refused, 401, { code: 'invalid_api_key' })
    expectOrigin(refused, 'on a 401, so that the page can read why')
    expectListed(refused, 'access-control-expose-headers', ['Request-Id'], 'on a 401')
  },
}

/**
 * A page reads every answer, whatever its status: the CORS headers are on errors as on successes (a page that
 * cannot read a 429 cannot read its `Retry-After` either). One request per status, none that could write: a bad
 * query (400), a key without the scope (403), an unknown ID (404), a method the path does not have (405), and a
 * used-up burst window of an account of the check's own (429, with `Retry-After` exposed).
 */
const corsEveryStatus: ContractCheck = {
  id: 'responses/cors-every-status',
  area: 'responses',
  group: 'Headers',
  title: 'lets a page read every error it gets (400, 403, 404, 405, 429) with the documented headers exposed',
  needs: ['publishable-key'],
  async run(ctx) {
    const mock = ctx.mock
    if (!mock) return ctx.skip('CORS is promised by the standalone mock only (docs/decisions/001-general.md)')
    const headers = { origin: ORIGIN }
    const cases: [number, CheckCallInput][] = [
      [400, { method: 'GET', path: '/agents?limit=0', headers, operationId: 'listAgents' }],
      [
        403,
        {
          method: 'GET',
          path: '/call-logs',
          key: ctx.keys.publishable,
          headers,
          operationId: 'listCallLogs',
        },
      ],
      [404, { method: 'GET', path: '/agents/agt_0ContractSuiteNone0', headers, operationId: 'getAgent' }],
      [405, { method: 'POST', path: '/agents/agt_0ContractSuiteNone0', headers }],
    ]
    for (const [status, input] of cases) {
      const answer = await ctx.call(input)
      expectStatus(answer, status, `for ${input.method} ${input.path} from a page`)
      expectOrigin(answer, `on a ${status}, so that the page can read it`)
      expectListed(answer, 'access-control-expose-headers', ['Request-Id'], `on a ${status}`)
    }
    const { account } = await scratchAccount(ctx, mock, 'CORS on a 429')
    await mock.updateAccount(account.id, { limits: { hourly: 100, burst: 1 } })
    const key = (
      await mock.createKey(account.id, { type: 'secret', name: `Contract suite ${ctx.runId} 429` })
    ).value
    const user = {
      method: 'GET',
      path: '/user',
      key,
      sensitive: [key],
      rateLimitProbe: true,
      operationId: 'getUser',
    }
    expectStatus(await ctx.call(user), 200, 'for the first request of a burst window of one')
    const limited = await ctx.call({ ...user, headers })
    expectStatus(limited, 429, 'for the second request of a burst window of one')
    expectOrigin(limited, 'on a 429, so that the page can read when to try again')
    expectListed(
      limited,
      'access-control-expose-headers',
      ['Request-Id', 'RateLimit', 'RateLimit-Policy', 'Retry-After'],
      'on a 429',
    )
  },
}

/** CORS, as the standalone mock promises it. */
export const corsChecks: ContractCheck[] = [cors, corsEveryStatus]

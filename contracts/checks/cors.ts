import type { Exchange } from '../http/exchange.ts'
import { ensure, expectError, expectStatus } from './failure.ts'
import type { CheckContext, ContractCheck } from './types.ts'

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

/** CORS, as the standalone mock promises it. */
export const corsChecks: ContractCheck[] = [cors]

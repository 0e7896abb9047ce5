import type { Exchange } from '../http/exchange.ts'
import { ensure, expectError, expectStatus, jsonObject } from './failure.ts'
import { scratchAccount } from './fixtures.ts'
import { parseChallenge } from './formats.ts'
import type { CheckContext, ContractCheck, Need } from './types.ts'

/** A key of the right shape that no implementation issued. */
/** A key nobody issued, as random-looking as a real one: no part of it may come back in an answer. */
const UNKNOWN_KEY = 'sk-svc-Kq4ZpT8vMw2Rn6Ly3Hd9Bx5Fc1Gs7Jt0QeUa'

/**
 * The spec's exact 401: `{error: {type: authentication_error, code: invalid_api_key, message}}`, nothing more,
 * with a `Bearer` challenge (RFC 6750; `realm` and `error` are optional, docs/decisions/011-allowed-forms.md). Without
 * credentials the challenge carries no `error` (RFC 6750 section 3.1); for a bad key, `error` is
 * `invalid_token` when present.
 */
function expect401(exchange: Exchange, challenge?: 'missing' | 'invalid'): void {
  expectError(exchange, 401, { type: 'authentication_error', code: 'invalid_api_key' })
  const body = jsonObject(exchange)
  const error = body.error as Record<string, unknown>
  const keys = Object.keys(error).sort().join(',')
  ensure(
    Object.keys(body).join(',') === 'error' && keys === 'code,message,type',
    'exactly error.type, error.code and error.message',
    `fields ${keys}`,
    exchange,
  )
  ensure(
    typeof error.message === 'string' && error.message.length > 0,
    'a message',
    JSON.stringify(error.message),
    exchange,
  )
  if (!challenge) return
  const header = exchange.response.headers['www-authenticate']
  const parsed = parseChallenge(header)
  ensure(
    parsed?.scheme === 'bearer',
    'a WWW-Authenticate: Bearer challenge',
    JSON.stringify(header ?? null),
    exchange,
  )
  const code = parsed?.params.get('error')
  if (challenge === 'missing')
    ensure(
      code === undefined,
      'no error attribute in the challenge when no credentials were sent (RFC 6750 section 3.1)',
      JSON.stringify(header),
      exchange,
    )
  else
    ensure(
      code === undefined || code === 'invalid_token',
      'error="invalid_token" (or no error attribute) in the challenge',
      JSON.stringify(header),
      exchange,
    )
}

/** A request without valid credentials: what it sends in place of a key. */
interface Credential {
  key?: string | null
  authorization?: (ctx: CheckContext) => string
  /** A query string carrying the key (never a valid way to send it). */
  query?: (ctx: CheckContext) => string
  sensitive?: string[]
}

/**
 * The invalid credentials, each sent to its own read operation: every operation must refuse whatever is
 * sent (the every-operation check shares these answers), and each kind of bad credential is refused once.
 */
const SENT_TO: Record<string, Credential & { operationId: string }> = {
  missing: { operationId: 'getUser', key: null },
  malformed: { operationId: 'listAgents', authorization: () => 'Bearer not-a-valid-key' },
  unknown: { operationId: 'getAgent', key: UNKNOWN_KEY, sensitive: [UNKNOWN_KEY] },
  basic: { operationId: 'listCallLogs', authorization: (ctx) => `Basic ${btoa(`${ctx.keys.secret}:`)}` },
  token: { operationId: 'getCallLog', authorization: (ctx) => `Token ${ctx.keys.secret}` },
  empty: { operationId: 'getCallAnalytics', authorization: () => 'Bearer ' },
  // The key under the three usual names at once: accepting it under any one of them changes the answer
  // (a 200, or a 400 for the other two names), so one request tells all three apart.
  query: {
    operationId: 'listIntegrations',
    key: null,
    query: (ctx) => {
      const key = encodeURIComponent(ctx.keys.secret)
      return `?api_key=${key}&key=${key}&access_token=${key}`
    },
  },
}

/** The path a probe uses for an operation: path parameters filled with an ID that cannot exist. */
const probePath = (path: string) => path.replace(/\{[^}]+\}/g, 'x_0ContractSuite')

function send(ctx: CheckContext, operationId: string, credential: Credential, path?: string) {
  const operation = ctx.contract.operation(operationId)
  return ctx.call({
    method: operation.method.toUpperCase(),
    path: (path ?? probePath(operation.path)) + (credential.query?.(ctx) ?? ''),
    key: credential.key === undefined ? null : credential.key,
    authorization: credential.authorization?.(ctx),
    sensitive: credential.sensitive,
    json: operation.requestBody ? {} : undefined,
    operationId,
  })
}

const sendAs = (ctx: CheckContext, kind: keyof typeof SENT_TO) => {
  const credential = SENT_TO[kind] as Credential & { operationId: string }
  return send(ctx, credential.operationId, credential)
}

const getUser = (ctx: CheckContext, credential: Credential) => send(ctx, 'getUser', credential, '/user')

interface Case {
  id: string
  title: string
  needs?: Need[]
  stateless?: boolean
  run: (ctx: CheckContext) => Promise<void>
}

const refused = (exchange: Exchange, why = '') =>
  expectError(exchange, 401, { type: 'authentication_error', code: 'invalid_api_key' }, why)

const cases: Case[] = [
  {
    id: 'missing',
    title: 'returns 401 with the exact documented body when no key is sent',
    stateless: true,
    run: async (ctx) => expect401(await sendAs(ctx, 'missing')),
  },
  {
    id: 'missing-challenge',
    title: 'challenges with WWW-Authenticate: Bearer, without an error attribute, when no key is sent',
    run: async (ctx) => expect401(await sendAs(ctx, 'missing'), 'missing'),
  },
  {
    id: 'malformed',
    title: 'returns 401 for a malformed key',
    run: async (ctx) => expect401(await sendAs(ctx, 'malformed'), 'invalid'),
  },
  {
    id: 'unknown',
    title: 'returns 401 for an unknown key of the right shape, without echoing it',
    run: async (ctx) => expect401(await sendAs(ctx, 'unknown'), 'invalid'),
  },
  {
    id: 'basic-scheme',
    title: 'returns 401 for the key sent with the Basic scheme',
    stateless: true,
    run: async (ctx) => refused(await sendAs(ctx, 'basic')),
  },
  {
    id: 'token-scheme',
    title: 'returns 401 for the key sent with a scheme other than Bearer',
    run: async (ctx) => refused(await sendAs(ctx, 'token')),
  },
  {
    id: 'empty-token',
    title: 'returns 401 for an empty Bearer token',
    run: async (ctx) => refused(await sendAs(ctx, 'empty')),
  },
  {
    id: 'query-string',
    title: 'returns 401 for a key sent in the query string',
    stateless: true,
    run: async (ctx) =>
      expectError(
        await sendAs(ctx, 'query'),
        401,
        { type: 'authentication_error', code: 'invalid_api_key' },
        'for ?api_key=<key>&key=<key>&access_token=<key>',
      ),
  },
  {
    id: 'scheme-case',
    title: 'accepts the Bearer scheme name in any case',
    run: async (ctx) => {
      // Mixed case: neither a case-sensitive comparison nor a list of the usual spellings accepts it.
      const authorization = () => `bEARER ${ctx.keys.secret}`
      expectStatus(await getUser(ctx, { authorization }), 200, 'for "bEARER <key>"')
    },
  },
  {
    id: 'key-forms',
    title:
      "refuses the account's key with the other type's prefix, with a character more, or with more after it (401), and never echoes a key sent in the query",
    needs: ['beyond-read-only'],
    run: async (ctx) => {
      // docs/decisions/003-api-keys.md: a key is its prefix and its random part, compared whole (as a digest).
      const key = ctx.keys.secret
      const other = key.startsWith('sk-') ? `pk-${key.slice(3)}` : `sk-${key.slice(3)}`
      for (const [authorization, what] of [
        [`Bearer ${other}`, "the key's random part with the other type's prefix"],
        [`Bearer ${key}0`, 'the key with one character more'],
        [`Bearer ${key} spare`, 'the key followed by a space and more'],
      ] as const)
        refused(await getUser(ctx, { authorization: () => authorization, sensitive: [other] }), `for ${what}`)
      // A valid request that also names the key in the query: 400 for the parameter, the key in no part of it.
      const exchange = await ctx.call({
        method: 'GET',
        path: `/user?api_key=${encodeURIComponent(key)}`,
        operationId: 'getUser',
      })
      expectError(
        exchange,
        400,
        { type: 'invalid_request_error', code: 'invalid_parameter', param: 'api_key' },
        'for a valid request with ?api_key=<the key> as well',
      )
    },
  },
  {
    id: 'bearer-spaces',
    title: 'accepts the key after several spaces following Bearer',
    needs: ['beyond-read-only'],
    run: async (ctx) => {
      // RFC 9110 section 11.4 and RFC 6750 section 2.1: `Bearer 1*SP token`, so the token is what follows the
      // spaces, whatever their number (docs/decisions/002-authentication.md: only Authorization: Bearer <key>
      // authenticates, and this is that header). A reader that keeps the extra space in the token refuses it.
      const authorization = () => `Bearer   ${ctx.keys.secret}`
      expectStatus(
        await getUser(ctx, { authorization }),
        200,
        'for "Bearer   <key>" (three spaces: RFC 9110 allows 1*SP before the token, docs/decisions/002-authentication.md)',
      )
    },
  },
  {
    id: 'revoked',
    title: 'returns 401 for a revoked key',
    needs: ['revoked-key'],
    run: async (ctx) => expect401(await getUser(ctx, { key: ctx.keys.revoked }), 'invalid'),
  },
  {
    id: 'revoked-in-use',
    title:
      'refuses a key from the very request after its revocation, though it was in use a moment before, and keeps its twin working',
    needs: ['own-account'],
    run: async (ctx) => {
      // docs/decisions/003: "A revocation is effective on the very next request"; the contract, bearerAuth: "A
      // revoked key is rejected (401) from the very next request". An implementation that caches the outcome
      // of a key's check (for a minute, say) fails only for a key that was just used: the provisioned revoked
      // key never was. Two keys alike (secret, every scope) of an account of the check's own, one revoked.
      const mock = ctx.mock
      if (!mock)
        return ctx.skip('needs keys made and revoked through the mock control plane (--provision mock)')
      const { account, name } = await scratchAccount(ctx, mock, 'revoked in use')
      const [used, twin] = [
        await mock.createKey(account.id, { type: 'secret', name }),
        await mock.createKey(account.id, { type: 'secret', name }),
      ]
      // Fresh answers: the run's cache knows nothing of a revocation made through the control plane.
      const user = (key: string) =>
        ctx.call({
          method: 'GET',
          path: '/user',
          key,
          sensitive: [used.value, twin.value],
          operationId: 'getUser',
          fresh: true,
        })
      expectStatus(await user(used.value), 200, 'for GET /user with a key just made')
      expectStatus(await user(twin.value), 200, 'for GET /user with a second key alike')
      await mock.revokeKey(used.id)
      expect401(await user(used.value), 'invalid')
      expectStatus(await user(twin.value), 200, 'for GET /user with the other key, not revoked')
    },
  },
  {
    id: 'expired',
    title: 'returns 401 for a key past its expires_at',
    needs: ['expired-key'],
    run: async (ctx) => expect401(await getUser(ctx, { key: ctx.keys.expired }), 'invalid'),
  },
  {
    id: 'messages',
    title: 'tells missing, invalid, revoked and expired keys apart in the message',
    needs: ['revoked-key', 'expired-key'],
    run: async (ctx) => {
      const exchanges = [
        await getUser(ctx, { key: null }),
        await getUser(ctx, { key: UNKNOWN_KEY, sensitive: [UNKNOWN_KEY] }),
        await getUser(ctx, { key: ctx.keys.revoked }),
        await getUser(ctx, { key: ctx.keys.expired }),
      ]
      const messages = exchanges.map((e) =>
        String((jsonObject(e).error as Record<string, unknown>)?.message).replace(
          /\.\.\.[A-Za-z0-9]{4}/g,
          '...',
        ),
      )
      ensure(new Set(messages).size === 4, 'four different messages', messages.join(' | '), exchanges[2])
    },
  },
]

/**
 * Every operation refuses a request without a valid key (401 before anything else). The read operations
 * that the credential checks above use get their bad credential (the same requests, shared); the others
 * get none. So do paths v1 does not have (one made up, and the routes frameworks mount beside an API).
 */
const everyOperation: ContractCheck = {
  id: 'authentication/every-operation',
  area: 'authentication',
  group: 'Every operation',
  title: 'returns 401 without a valid key on every operation, before routing and validation',
  async run(ctx) {
    for (const operation of ctx.contract.operations) {
      const method = operation.method.toUpperCase()
      if (method !== 'GET' && !ctx.target.destructive) continue
      const credential = Object.values(SENT_TO).find((c) => c.operationId === operation.operationId) ?? {
        key: null,
      }
      const exchange = await send(ctx, operation.operationId, credential)
      expectError(
        exchange,
        401,
        { code: 'invalid_api_key' },
        `for ${method} ${operation.path} without a valid key`,
      )
    }
    // An unknown path, and the routes frameworks and load balancers mount beside an API (health checks, metrics,
    // the API's own description): none is a route of v1, so without a key each is a 401 first. Refused before
    // the rate limit, they cost a read-only run nothing.
    for (const path of ['/no-such-resource', ...ROUTES_BESIDE_AN_API]) {
      const unknownPath = await ctx.call({ method: 'GET', path, key: null })
      expectError(
        unknownPath,
        401,
        { code: 'invalid_api_key' },
        `for GET ${path} (no route of v1) without a key`,
      )
    }
  },
}

/** Routes a web framework or a load balancer mounts beside an API, which v1 does not have. */
const ROUTES_BESIDE_AN_API = ['/health', '/healthz', '/status', '/ping', '/metrics', '/openapi.json', '/docs']

/** Authentication: every way a key can be missing, malformed, wrong or dead, and the exact 401. */
export const authenticationChecks: ContractCheck[] = [
  ...cases.map(
    (c): ContractCheck => ({
      id: `authentication/${c.id}`,
      area: 'authentication',
      group: 'Credentials',
      title: c.title,
      needs: c.needs,
      stateless: c.stateless,
      run: c.run,
    }),
  ),
  everyOperation,
]

import type { Exchange } from '../http/exchange.ts'
import { ensure, expectError, expectStatus, jsonObject } from './failure.ts'
import type { CheckContext, ContractCheck, Need } from './types.ts'

/** A key of the right shape that no implementation issued. */
const UNKNOWN_KEY = `sk-svc-${'ContractSuiteUnknownKey0'.padEnd(40, 'x')}`

/** The spec's exact 401: `{error: {type: authentication_error, code: invalid_api_key, message}}`, nothing more. */
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
  const header = exchange.response.headers['www-authenticate'] ?? ''
  const want =
    challenge === 'missing' ? /^Bearer realm="api"$/ : /^Bearer realm="api", error="invalid_token"$/
  ensure(want.test(header), `WWW-Authenticate matching ${want.source}`, JSON.stringify(header), exchange)
}

interface Case {
  id: string
  title: string
  needs?: Need[]
  stateless?: boolean
  run: (ctx: CheckContext) => Promise<void>
}

const getUser = (
  ctx: CheckContext,
  input: { key?: string | null; authorization?: string; path?: string; sensitive?: string[] },
) =>
  ctx.call({
    method: 'GET',
    path: input.path ?? '/user',
    key: input.key,
    authorization: input.authorization,
    sensitive: input.sensitive,
    operationId: 'getUser',
  })

const cases: Case[] = [
  {
    id: 'missing',
    title: 'returns 401 with the exact documented body when no key is sent',
    stateless: true,
    run: async (ctx) => expect401(await getUser(ctx, { key: null })),
  },
  {
    id: 'missing-challenge',
    title: 'challenges with WWW-Authenticate: Bearer realm="api" when no key is sent (no error attribute)',
    run: async (ctx) => expect401(await getUser(ctx, { key: null }), 'missing'),
  },
  {
    id: 'malformed',
    title: 'returns 401 for a malformed key',
    run: async (ctx) => expect401(await getUser(ctx, { authorization: 'Bearer not-a-valid-key' }), 'invalid'),
  },
  {
    id: 'unknown',
    title: 'returns 401 for an unknown key of the right shape, without echoing it',
    run: async (ctx) =>
      expect401(await getUser(ctx, { key: UNKNOWN_KEY, sensitive: [UNKNOWN_KEY] }), 'invalid'),
  },
  {
    id: 'basic-scheme',
    title: 'returns 401 for the key sent with the Basic scheme',
    stateless: true,
    run: async (ctx) => {
      const exchange = await getUser(ctx, { authorization: `Basic ${btoa(`${ctx.keys.secret}:`)}` })
      expectError(exchange, 401, { type: 'authentication_error', code: 'invalid_api_key' })
    },
  },
  {
    id: 'token-scheme',
    title: 'returns 401 for the key sent with a scheme other than Bearer',
    run: async (ctx) => {
      const exchange = await getUser(ctx, { authorization: `Token ${ctx.keys.secret}` })
      expectError(exchange, 401, { type: 'authentication_error', code: 'invalid_api_key' })
    },
  },
  {
    id: 'empty-token',
    title: 'returns 401 for an empty Bearer token',
    run: async (ctx) => {
      const exchange = await getUser(ctx, { authorization: 'Bearer ' })
      expectError(exchange, 401, { type: 'authentication_error', code: 'invalid_api_key' })
    },
  },
  {
    id: 'query-string',
    title: 'returns 401 for a key sent in the query string',
    stateless: true,
    run: async (ctx) => {
      for (const name of ['api_key', 'key', 'access_token']) {
        const exchange = await getUser(ctx, {
          key: null,
          path: `/user?${name}=${encodeURIComponent(ctx.keys.secret)}`,
        })
        expectError(
          exchange,
          401,
          { type: 'authentication_error', code: 'invalid_api_key' },
          `for ?${name}=<key>`,
        )
      }
    },
  },
  {
    id: 'scheme-case',
    title: 'accepts the Bearer scheme name in any case',
    run: async (ctx) => {
      for (const scheme of ['bearer', 'BEARER'])
        expectStatus(
          await getUser(ctx, { authorization: `${scheme} ${ctx.keys.secret}` }),
          200,
          `for "${scheme} <key>"`,
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

/** Every operation refuses a request without a key (401 before anything else). */
const everyOperation: ContractCheck = {
  id: 'authentication/every-operation',
  area: 'authentication',
  group: 'Every operation',
  title: 'returns 401 without a key on every operation, before routing and validation',
  async run(ctx) {
    for (const operation of ctx.contract.operations) {
      const method = operation.method.toUpperCase()
      if (method !== 'GET' && !ctx.target.destructive) continue
      const path = operation.path.replace(/\{[^}]+\}/g, 'x_0ContractSuite')
      const exchange = await ctx.call({
        method,
        path,
        key: null,
        json: operation.requestBody ? {} : undefined,
        operationId: operation.operationId,
      })
      expectError(exchange, 401, { code: 'invalid_api_key' }, `for ${method} ${operation.path} without a key`)
    }
    const unknownPath = await ctx.call({ method: 'GET', path: '/no-such-resource', key: null })
    expectError(unknownPath, 401, { code: 'invalid_api_key' }, 'for an unknown path without a key')
  },
}

/** Authentication: every way a key can be missing, malformed, wrong or dead, and the exact 401. */
export const authenticationChecks: ContractCheck[] = [
  ...cases.map(
    (c): ContractCheck => ({
      id: `authentication/${c.id}`,
      area: 'authentication',
      group: 'GET /user',
      title: c.title,
      needs: c.needs,
      stateless: c.stateless,
      run: c.run,
    }),
  ),
  everyOperation,
]

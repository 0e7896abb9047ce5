import { fillPath } from '../contract/operations.ts'
import type { Exchange } from '../http/exchange.ts'
import { ContractFailure, ensure, expectError } from './failure.ts'
import { UNKNOWN_IDS } from './fixtures.ts'
import type { ContractCheck } from './types.ts'

const NOT_FOUND = { type: 'not_found_error', code: 'route_not_found' }

/**
 * Paths under the base URL that no operation has, one of each kind: the root, another case, the parent of a
 * known path, a trailing segment after a literal path and after a templated one, a nested version segment.
 * Each must be 404 `route_not_found`, never a near match.
 */
const UNKNOWN_PATHS = [
  '/',
  '/Agents',
  '/analytics',
  '/user/extra',
  `/agents/${UNKNOWN_IDS.agent_id}/calls`,
  '/v1/user',
]

/**
 * Versions next to `v1` (the last segment of the base URL): only `v1` exists, so each is 404: another number,
 * another case, and one that starts with `v1`. Sent as `/../<version>/...`, which URL resolution turns into a
 * sibling of the base URL's `/v1`.
 */
const OTHER_VERSIONS: [version: string, rest: string][] = [
  ['v2', '/user'],
  ['V1', '/agents'],
  ['v10', '/user'],
]

/** Known paths with a method the contract does not document, and a key that lacks every scope. */
const UNDOCUMENTED_METHODS: { method: string; path: string }[] = [
  { method: 'DELETE', path: '/user' },
  { method: 'PUT', path: '/agents/{agent_id}' },
  { method: 'POST', path: '/call-logs/{call_log_id}' },
  { method: 'PATCH', path: '/call-logs' },
  { method: 'DELETE', path: '/integrations/{integration_id}' },
  { method: 'POST', path: '/analytics/calls' },
  { method: 'PUT', path: '/team-members' },
]

const unknownPaths: ContractCheck = {
  id: 'responses/unknown-paths',
  area: 'responses',
  group: 'Routing',
  title:
    'answers 404 route_not_found for other spellings of the paths, trailing segments and nested versions',
  async run(ctx) {
    for (const path of UNKNOWN_PATHS)
      expectError(await ctx.call({ method: 'GET', path }), 404, NOT_FOUND, `for GET ${path}`)
  },
}

const otherVersions: ContractCheck = {
  id: 'responses/other-versions',
  area: 'responses',
  group: 'Routing',
  title: 'answers 404 route_not_found for versions other than v1 (v2, V1, v10)',
  async run(ctx) {
    for (const [version, rest] of OTHER_VERSIONS) {
      let exchange: Exchange
      try {
        exchange = await ctx.call({ method: 'GET', path: `/../${version}${rest}` })
      } catch (error) {
        if (error instanceof ContractFailure) throw error
        // The transport serves only the base URL (an in-app mock intercepting `/v1` alone): nothing to probe.
        return ctx.skip(`the target does not answer outside its base URL (${String(error)})`)
      }
      expectError(exchange, 404, NOT_FOUND, `for GET /${version}${rest} (beside /v1)`)
    }
  },
}

const undocumentedMethods: ContractCheck = {
  id: 'responses/undocumented-methods',
  area: 'responses',
  group: 'Routing',
  title:
    'answers 405 with an Allow header of the documented methods on every path, before any permission check',
  needs: ['write'],
  async run(ctx) {
    // A key without any scope still gets the 405: routing comes before permissions.
    const noScope = ctx.keys.scoped.find((k) => k.scopes.length === 0)?.key
    for (const { method, path } of UNDOCUMENTED_METHODS) {
      const documented = ctx.contract.operations.filter((op) => op.path === path).map((op) => op.method)
      if (documented.length === 0) throw new Error(`The contract has no path ${path}.`)
      const url = fillPath(path, UNKNOWN_IDS)
      for (const key of [ctx.keys.secret, noScope]) {
        if (key === undefined) continue
        const why = `for ${method} ${path}${key === noScope ? ' with a key holding no scope' : ''}`
        const exchange = await ctx.call({
          method,
          path: url,
          key,
          json: method === 'GET' || method === 'DELETE' ? undefined : {},
        })
        expectError(exchange, 405, { type: 'invalid_request_error', code: 'method_not_allowed' }, why)
        checkAllow(exchange, documented, method, why)
      }
    }
  },
}

/** `Allow` lists every documented method of the path and not the one refused. */
export function checkAllow(exchange: Exchange, documented: string[], refused: string, why: string): void {
  const header = exchange.response.headers.allow ?? ''
  const allow = header.split(',').map((m) => m.trim().toLowerCase())
  for (const method of documented)
    ensure(
      allow.includes(method),
      `Allow to list ${method.toUpperCase()} ${why}`,
      JSON.stringify(header),
      exchange,
    )
  ensure(
    !allow.includes(refused.toLowerCase()),
    `Allow without ${refused} ${why}`,
    JSON.stringify(header),
    exchange,
  )
}

/** Routing probed widely: unknown paths, other versions, undocumented methods. */
export const routingChecks: ContractCheck[] = [unknownPaths, otherVersions, undocumentedMethods]

import type { ContractOperation } from '../contract/operations.ts'
import { fillPath } from '../contract/operations.ts'
import type { ScopedKey } from '../target/target.ts'
import { ensure, expectError, expectStatus, jsonObject, listData } from './failure.ts'
import { agentBody, createAgent, inviteBody, UNKNOWN_IDS } from './fixtures.ts'
import type { CheckContext, ContractCheck } from './types.ts'

/** Scopes a scope grants as well, as the contract's description states (`agents:write` reads agents too). */
const IMPLIED: Record<string, string> = {
  'agents:write': 'agents:read',
  'integrations:write': 'integrations:read',
}

/** The first scope of the operation's `x-required-permission` that the key does not hold, counting implications. */
export function firstMissing(held: readonly string[], needed: readonly string[]): string | undefined {
  const effective = new Set([...held, ...held.map((s) => IMPLIED[s]).filter((s): s is string => !!s)])
  return needed.find((scope) => !effective.has(scope))
}

/**
 * The request the matrix sends for an operation: unknown IDs and empty bodies, so that a key holding the
 * scopes gets 404 or 422 (never a change), and a key lacking one gets 403 first.
 */
function probe(operation: ContractOperation) {
  const path = fillPath(operation.path, UNKNOWN_IDS)
  const hasId = operation.path.includes('{')
  const json = operation.requestBody ? {} : undefined
  const allowed = hasId ? [404] : operation.requestBody ? [422] : [200]
  return { method: operation.method.toUpperCase(), path, json, allowed }
}

/** The keys of the matrix: each restricted key, and the publishable key (which holds `agents:read` only). */
function matrixKeys(ctx: CheckContext): ScopedKey[] {
  const keys = [...ctx.keys.scoped]
  if (ctx.keys.publishable) keys.push({ key: ctx.keys.publishable, scopes: ['agents:read'] })
  return keys
}

function matrixCheck(operation: ContractOperation): ContractCheck {
  const write = operation.method !== 'get'
  return {
    id: `authorization/matrix/${operation.operationId}`,
    area: 'authorization',
    group: 'Operations x scopes',
    title: `${operation.operationId}: 403 naming the missing scope for a key lacking one, never 403 for a key holding all`,
    needs: write ? ['scoped-keys', 'write'] : ['scoped-keys'],
    async run(ctx) {
      const request = probe(operation)
      for (const { key, scopes } of matrixKeys(ctx)) {
        const missing = firstMissing(scopes, operation.permissions)
        const label = `for a key holding [${scopes.join(', ')}]`
        const exchange = await ctx.call({ ...request, key, operationId: operation.operationId })
        if (missing)
          expectError(
            exchange,
            403,
            { type: 'permission_error', code: 'insufficient_permissions', required_permission: missing },
            label,
          )
        else expectStatus(exchange, request.allowed, label)
      }
    },
  }
}

const publishableWrites: ContractCheck = {
  id: 'authorization/publishable-never-writes',
  area: 'authorization',
  group: 'Publishable keys',
  title: 'refuses every write with a publishable key, even with a valid body (403)',
  needs: ['publishable-key', 'write'],
  async run(ctx) {
    const key = ctx.keys.publishable as string
    const bodies: Record<string, unknown> = {
      createAgent: agentBody(ctx),
      inviteTeamMember: inviteBody(ctx),
      updateAgent: { name: 'Contract suite rename' },
      updateIntegration: { enabled: true },
      updateTeamMember: { role: 'viewer' },
    }
    for (const operation of ctx.contract.operations.filter((op) => op.method !== 'get')) {
      const path = fillPath(operation.path, UNKNOWN_IDS)
      const exchange = await ctx.call({
        method: operation.method.toUpperCase(),
        path,
        key,
        json: bodies[operation.operationId],
        operationId: operation.operationId,
      })
      expectError(
        exchange,
        403,
        { type: 'permission_error', code: 'insufficient_permissions' },
        `for ${operation.operationId} with a publishable key`,
      )
    }
  },
}

async function someAgentId(ctx: CheckContext): Promise<string> {
  if (ctx.target.destructive)
    return String(
      (
        await createAgent(ctx, {
          system_prompt: 'Contract suite prompt',
          webhook_url: 'https://contract-suite.example/hook',
        })
      ).agent.id,
    )
  const list = await ctx.call({ method: 'GET', path: '/agents?limit=1' })
  const first = listData(list)[0]
  if (!first) return ctx.skip('no agent to read (run with --destructive to create one)')
  return String(first.id)
}

const sensitiveFields: ContractCheck = {
  id: 'authorization/publishable-sensitive-fields',
  area: 'authorization',
  group: 'Publishable keys',
  title: 'never shows a publishable key the sensitive agent fields; always shows them to a secret key',
  needs: ['publishable-key'],
  async run(ctx) {
    const id = await someAgentId(ctx)
    // Two agents at least, for a page after the first.
    if (ctx.target.destructive) await someAgentId(ctx)
    const fields = ctx.contract.sensitiveAgentFields
    const key = ctx.keys.publishable as string
    // The same reads by the secret key just before: an answer kept for the account, not for the key's type,
    // would show.
    for (const path of [`/agents/${id}`, '/agents?limit=100'])
      expectStatus(
        await ctx.call({ method: 'GET', path, fresh: true }),
        200,
        `for ${path} with the secret key`,
      )
    const one = await ctx.call({ method: 'GET', path: `/agents/${id}`, key, operationId: 'getAgent' })
    expectStatus(one, 200, 'for a publishable key reading an agent')
    const list = await ctx.call({ method: 'GET', path: '/agents?limit=100', key, operationId: 'listAgents' })
    expectStatus(list, 200)
    // Pages after the first, both ways: the cursor's query path must know the key as well as the first page's.
    const listed = listData(list).map((a) => String(a.id))
    const pages = await Promise.all(
      [
        listed[0] && `starting_after=${listed[0]}`,
        listed[1] && `ending_before=${listed[1]}`,
        listed[1] && `starting_after=${listed[1]}&limit=1`,
      ]
        .filter((query): query is string => !!query)
        .map((query) =>
          ctx.call({ method: 'GET', path: `/agents?${query}`, key, operationId: 'listAgents' }),
        ),
    )
    for (const page of pages) expectStatus(page, 200, 'for a publishable key paging through agents')
    for (const [agent, exchange] of [
      [jsonObject(one), one],
      ...[list, ...pages].flatMap((page) => listData(page).map((a) => [a, page] as const)),
    ] as const)
      for (const field of fields)
        ensure(
          !(field in agent),
          `no ${field} in agents shown to a publishable key`,
          `${field} in ${String(agent.id)}`,
          exchange,
        )
    const secret = await ctx.call({ method: 'GET', path: `/agents/${id}`, operationId: 'getAgent' })
    expectStatus(secret, 200)
    for (const field of fields)
      ensure(field in jsonObject(secret), `${field} shown to a secret key`, `no ${field}`, secret)
  },
}

/** Secret keys whose scopes read agents in every way a key can be given them (a scope alone, implied, a group). */
const READING_SCOPES = [['agents:read'], ['agents:write'], ['read']]

/**
 * The sensitive fields follow the key's type, not its scopes (docs/decisions/004-permissions.md): a secret key
 * that holds only what a publishable key holds (`agents:read`), only `agents:write` (which implies it) or only
 * the `read` group still sees `system_prompt`, `webhook_url` and `metadata`, by ID and in the list.
 */
const secretSensitiveFields: ContractCheck = {
  id: 'authorization/secret-sensitive-fields',
  area: 'authorization',
  group: 'Publishable keys',
  title:
    'shows the sensitive agent fields to every secret key that reads agents, whatever its scopes (agents:read alone, agents:write alone, the read group)',
  async run(ctx) {
    const mock = ctx.mock
    if (!mock)
      return ctx.skip(
        'needs secret keys with few scopes, made through the mock control plane (--provision mock)',
      )
    const id = await someAgentId(ctx)
    const user = await ctx.call({ method: 'GET', path: '/user', operationId: 'getUser' })
    expectStatus(user, 200)
    const account = String(jsonObject(user).id)
    for (const permissions of READING_SCOPES) {
      const made = await mock.createKey(account, {
        type: 'secret',
        name: `Contract suite ${ctx.runId} secret ${permissions.join(' ')}`,
        permissions,
      })
      const label = `for a secret key holding [${permissions.join(', ')}]`
      const one = await ctx.call({
        method: 'GET',
        path: `/agents/${id}`,
        key: made.value,
        sensitive: [made.value],
        operationId: 'getAgent',
      })
      expectStatus(one, 200, label)
      const list = await ctx.call({
        method: 'GET',
        path: '/agents?limit=100',
        key: made.value,
        sensitive: [made.value],
        operationId: 'listAgents',
      })
      expectStatus(list, 200, label)
      const listed = listData(list).find((agent) => agent.id === id)
      for (const [agent, exchange] of [
        [jsonObject(one), one],
        [listed ?? {}, list],
      ] as const)
        for (const field of ctx.contract.sensitiveAgentFields)
          ensure(field in agent, `${field} shown ${label}`, `no ${field} in ${id}`, exchange)
    }
  },
}

const forbiddenBeforeNotFound: ContractCheck = {
  id: 'authorization/403-before-404',
  area: 'authorization',
  group: 'Order of checks',
  title: 'answers 403, not 404, for an unknown ID when the key lacks the scope',
  needs: ['scoped-keys'],
  async run(ctx) {
    const key = ctx.keys.scoped.find(
      (k) => firstMissing(k.scopes, ['agents:read', 'call_logs:read']) === 'agents:read',
    )
    if (!key) return ctx.skip('needs a key without agents:read and agents:write')
    const exchange = await ctx.call({
      method: 'GET',
      path: `/agents/${UNKNOWN_IDS.agent_id}`,
      key: key.key,
      operationId: 'getAgent',
    })
    expectError(exchange, 403, { code: 'insufficient_permissions', required_permission: 'agents:read' })
  },
}

const originRestricted: ContractCheck = {
  id: 'authorization/allowed-origins',
  area: 'authorization',
  group: 'Key restrictions',
  title:
    'refuses a key restricted to an origin without that Origin (403 key_restricted) and accepts it with it',
  needs: ['origin-key'],
  async run(ctx) {
    const restricted = ctx.keys.originRestricted
    if (!restricted) return ctx.skip('needs a key restricted to an origin')
    const without = await ctx.call({
      method: 'GET',
      path: '/user',
      key: restricted.key,
      operationId: 'getUser',
    })
    expectError(
      without,
      403,
      { type: 'permission_error', code: 'key_restricted' },
      'without an Origin header',
    )
    const other = await ctx.call({
      method: 'GET',
      path: '/user',
      key: restricted.key,
      headers: { origin: 'https://elsewhere.example' },
      operationId: 'getUser',
    })
    expectError(other, 403, { code: 'key_restricted' }, 'from another origin')
    const allowed = await ctx.call({
      method: 'GET',
      path: '/user',
      key: restricted.key,
      headers: { origin: restricted.origin },
      operationId: 'getUser',
    })
    expectStatus(allowed, 200, 'from the allowed origin')
  },
}

/**
 * An origin is listed or it is not (docs/decisions/003: "the request's `Origin` must be listed"): origins that
 * begin like the allowed one, or differ from it in scheme or port only, are other origins (RFC 6454), refused
 * with 403 `key_restricted`. A restriction compared by prefix lets a look-alike host through.
 */
const allowedOriginsLookalikes: ContractCheck = {
  id: 'authorization/allowed-origins-lookalikes',
  area: 'authorization',
  group: 'Key restrictions',
  title:
    'refuses a key restricted to an origin from look-alike origins: a longer host, another port, another scheme (403 key_restricted)',
  needs: ['origin-key', 'beyond-read-only'],
  async run(ctx) {
    const restricted = ctx.keys.originRestricted
    if (!restricted) return ctx.skip('needs a key restricted to an origin')
    const url = new URL(restricted.origin)
    const lookalikes = [
      `${url.protocol}//${url.hostname}.attacker.example${url.port ? `:${url.port}` : ''}`,
      `${url.protocol}//${url.hostname}:${url.port === '8443' ? '9443' : '8443'}`,
      `${url.protocol === 'https:' ? 'http:' : 'https:'}//${url.host}`,
    ]
    for (const origin of lookalikes) {
      const exchange = await ctx.call({
        method: 'GET',
        path: '/user',
        key: restricted.key,
        headers: { origin },
        operationId: 'getUser',
      })
      expectError(
        exchange,
        403,
        { type: 'permission_error', code: 'key_restricted' },
        `from ${origin}, which is not ${restricted.origin}`,
      )
    }
  },
}

/** Authorization: the operations x scopes matrix, publishable keys, 403 before 404, key restrictions. */
export function authorizationChecks(operations: readonly ContractOperation[]): ContractCheck[] {
  return [
    ...operations.map(matrixCheck),
    forbiddenBeforeNotFound,
    publishableWrites,
    sensitiveFields,
    secretSensitiveFields,
    originRestricted,
    allowedOriginsLookalikes,
  ]
}

import { fillPath } from '../contract/operations.ts'
import { ensure, expectError, expectStatus, jsonObject, listData } from './failure.ts'
import { createAgent } from './fixtures.ts'
import type { CheckContext, ContractCheck } from './types.ts'

/**
 * Where to find an existing ID for a GET by id: the list to read it from (the list operation's own check
 * reads the same, so a run sends it once) and the key that may read it.
 */
const SOURCES: Record<
  string,
  { list: string; param: string; key?: (ctx: CheckContext) => string | undefined }
> = {
  getAgent: { list: '/agents', param: 'agent_id' },
  getCallLog: { list: '/call-logs', param: 'call_log_id', key: (ctx) => ctx.keys.callLogs },
  getIntegration: { list: '/integrations', param: 'integration_id' },
  getTeamMember: { list: '/team-members', param: 'member_id' },
}

const KEY_FOR: Record<string, (ctx: CheckContext) => string | undefined> = {
  listCallLogs: (ctx) => ctx.keys.callLogs,
  getCallAnalytics: (ctx) => ctx.keys.callLogs,
}

async function readOperation(ctx: CheckContext, operationId: string): Promise<void> {
  const operation = ctx.contract.operation(operationId)
  const source = SOURCES[operationId]
  let path = operation.path
  let key = KEY_FOR[operationId]?.(ctx) ?? ctx.keys.secret
  if (source) {
    key = source.key?.(ctx) ?? ctx.keys.secret
    const list = await ctx.call({ method: 'GET', path: source.list, key })
    expectStatus(list, 200)
    let first = listData(list)[0]
    if (!first && operationId === 'getAgent' && ctx.target.destructive) first = (await createAgent(ctx)).agent
    if (!first) return ctx.skip(`no object in ${source.list} to read (run with --destructive to create one)`)
    path = fillPath(operation.path, { [source.param]: String(first.id) })
  }
  const exchange = await ctx.call({ method: 'GET', path, key, operationId })
  expectStatus(
    exchange,
    200,
    `for ${operation.method.toUpperCase()} ${operation.path} with a key that may read it`,
  )
}

/** Every GET operation answers 200 as documented (status, Content-Type, headers, body schema). */
function readChecks(): ContractCheck[] {
  return [
    'getUser',
    'listAgents',
    'getAgent',
    'listCallLogs',
    'getCallLog',
    'getCallAnalytics',
    'listIntegrations',
    'getIntegration',
    'listTeamMembers',
    'getTeamMember',
  ].map((operationId) => ({
    id: `responses/${operationId}`,
    area: 'responses',
    group: 'Every read operation',
    title: `answers ${operationId} with a documented status, Content-Type, headers and body`,
    stateless: true,
    needs: operationId.includes('CallLog') || operationId === 'getCallAnalytics' ? ['call-logs'] : [],
    run: (ctx) => readOperation(ctx, operationId),
  }))
}

/** Responses: every read operation as documented, routing errors, Request-Id. */
export const responseChecks: ContractCheck[] = [
  ...readChecks(),
  {
    id: 'responses/unknown-route',
    area: 'responses',
    group: 'Routing',
    title: 'answers 404 route_not_found for a path outside the contract',
    async run(ctx) {
      // One of the unknown paths of responses/unknown-paths: the run sends it once for both checks.
      const exchange = await ctx.call({ method: 'GET', path: '/user/extra' })
      expectError(exchange, 404, { type: 'not_found_error', code: 'route_not_found' })
    },
  },
  {
    id: 'responses/method-not-allowed',
    area: 'responses',
    group: 'Routing',
    title:
      'answers 405 with an Allow header naming the documented methods and HEAD, and HEAD like GET without a body',
    needs: ['write'],
    async run(ctx) {
      const exchange = await ctx.call({ method: 'PUT', path: '/agents', json: {} })
      expectError(exchange, 405, { type: 'invalid_request_error', code: 'method_not_allowed' })
      const allow = (exchange.response.headers.allow ?? '').split(',').map((m) => m.trim().toLowerCase())
      // HEAD is answered wherever GET is documented, and listed after it (the contract's description).
      for (const method of [
        ...ctx.contract.operations.filter((op) => op.path === '/agents').map((op) => op.method),
        'head',
      ])
        ensure(
          allow.includes(method),
          `Allow to list ${method.toUpperCase()}`,
          JSON.stringify(exchange.response.headers.allow ?? null),
          exchange,
        )
      const get = await ctx.call({ method: 'GET', path: '/agents', operationId: 'listAgents' })
      // HEAD is described in the contract's text, not as an operation: its answer is compared with GET's.
      const head = await ctx.call({ method: 'HEAD', path: '/agents', conformance: false })
      expectStatus(head, get.response.status, 'for HEAD /agents, as for GET /agents')
      ensure(head.response.text === '', 'HEAD answered without a body', head.response.text.slice(0, 80), head)
      ensure(
        head.response.headers['content-type'] === get.response.headers['content-type'],
        `the Content-Type of GET (${get.response.headers['content-type']})`,
        String(head.response.headers['content-type']),
        head,
      )
    },
  },
  {
    id: 'responses/request-id-unique',
    area: 'responses',
    group: 'Headers',
    title:
      'gives every response its own Request-Id, also on errors (repeated as error.request_id, if at all)',
    async run(ctx) {
      // The same request twice: the second must be sent again, not answered from the run's cache.
      const first = await ctx.call({ method: 'GET', path: '/user' })
      const second = await ctx.call({ method: 'GET', path: '/user', fresh: true })
      const error = await ctx.call({ method: 'GET', path: '/agents/agt_0ContractSuiteNone0' })
      expectStatus(error, 404)
      const ids = [first, second, error].map((e) => e.response.headers['request-id'])
      ensure(new Set(ids).size === 3, 'three different Request-Id values', ids.join(', '), second)
      // error.request_id is optional (docs/decisions/007-errors.md); when present it repeats the header.
      const body = jsonObject(error).error as Record<string, unknown>
      ensure(
        body.request_id === undefined || body.request_id === error.response.headers['request-id'],
        'error.request_id, when present, equal to Request-Id',
        String(body.request_id),
        error,
      )
    },
  },
]

import type { ContractOperation } from '../contract/operations.ts'
import { fillPath } from '../contract/operations.ts'
import type { Exchange } from '../http/exchange.ts'
import { expectError } from './failure.ts'
import { UNKNOWN_IDS } from './fixtures.ts'
import { checkAllow } from './routing.ts'
import type { ContractCheck } from './types.ts'

/**
 * What a run without `--destructive` can learn about the operations that write, without writing anything:
 * every request here is one that cannot change anything on any implementation, correct or faulty
 * (`cannotWrite`, cannot-write.ts, which the runner enforces): sent without credentials, or naming an ID that
 * no implementation holds and carrying no JSON. Where the object's collection can be created through the API
 * (a POST on the collection's path), the object is first read by its ID, and nothing is sent unless that
 * read answers 404: the object does not exist, so there is nothing a DELETE or PATCH could act on. These
 * checks come after every check that reads: a request other than GET empties the run's cache of answers.
 *
 * Requests without a key cost nothing of the rate limit (a 401 is not counted, docs/decisions/006-rate-limits.md);
 * the others one request each.
 */

/** The object paths of the contract (`/agents/{agent_id}`) with the operations on them, in document order. */
export function objectPaths(operations: readonly ContractOperation[]) {
  const paths = new Map<string, ContractOperation[]>()
  for (const operation of operations)
    if (/\{[^}]+\}$/.test(operation.path))
      paths.set(operation.path, [...(paths.get(operation.path) ?? []), operation])
  return [...paths].map(([path, onPath]) => {
    const param = /\{([^}]+)\}$/.exec(path)?.[1] ?? ''
    const collection = path.slice(0, path.lastIndexOf('/'))
    return {
      path,
      param,
      id: UNKNOWN_IDS[param] ?? 'x_0ContractSuiteNone0',
      /** The last segment of the collection path: `agents`, `call-logs`, ... */
      name: collection.split('/').at(-1) ?? collection,
      methods: onPath.map((op) => op.method.toUpperCase()),
      operation: (method: string) => onPath.find((op) => op.method === method.toLowerCase()),
      creatable: operations.some((op) => op.method === 'post' && op.path === collection),
    }
  })
}

export type ObjectPath = ReturnType<typeof objectPaths>[number]

/** One request to an object that does not exist, and the refusal a correct implementation gives. */
interface Refusal {
  what: string
  method: string
  query?: string
  headers?: Record<string, string>
  body?: string
  expect: (exchange: Exchange, path: ObjectPath, why: string) => void
}

function refusals(path: ObjectPath): Refusal[] {
  const out: Refusal[] = []
  if (!path.methods.includes('POST'))
    out.push({
      what: 'POST without a body',
      method: 'POST',
      expect: (exchange, p, why) => {
        expectError(exchange, 405, { type: 'invalid_request_error', code: 'method_not_allowed' }, why)
        checkAllow(
          exchange,
          p.methods.map((m) => m.toLowerCase()),
          'POST',
          why,
        )
      },
    })
  if (path.methods.includes('DELETE'))
    out.push(
      {
        what: 'DELETE with an unknown query parameter',
        method: 'DELETE',
        query: 'contract_unknown=1',
        expect: (exchange, _, why) =>
          expectError(
            exchange,
            400,
            { type: 'invalid_request_error', code: 'invalid_parameter', param: 'contract_unknown' },
            why,
          ),
      },
      {
        what: 'DELETE',
        method: 'DELETE',
        expect: (exchange, p, why) =>
          expectError(
            exchange,
            404,
            { type: 'not_found_error', code: 'resource_not_found', param: p.param },
            why,
          ),
      },
    )
  if (path.methods.includes('PATCH'))
    out.push(
      {
        what: 'PATCH without a body',
        method: 'PATCH',
        expect: (exchange, _, why) =>
          expectError(exchange, 400, { type: 'invalid_request_error', code: 'invalid_json' }, why),
      },
      {
        what: 'PATCH with a text/plain body that is not JSON',
        method: 'PATCH',
        headers: { 'content-type': 'text/plain' },
        body: 'not json',
        expect: (exchange, _, why) =>
          expectError(exchange, 415, { type: 'invalid_request_error', code: 'unsupported_media_type' }, why),
      },
    )
  return out
}

/**
 * Writes to an object that does not exist, each refused as the contract's order of checks says
 * (docs/decisions/005-order-of-checks.md): 405 for a method the path does not document (with `Allow`), 400 for an
 * unknown query parameter before the 404 of the object, 404 for the object, 400 for a missing body and 415
 * for a body that is not JSON, before the object is looked up.
 */
function unknownObjectCheck(path: ObjectPath): ContractCheck {
  const cases = refusals(path)
  return {
    id: `bad-input/unknown-ids/${path.name}`,
    area: 'bad-input',
    group: 'Writes to an ID that does not exist',
    title: `refuses ${cases.map((c) => c.what).join(', ')} to ${path.path} for an ID that does not exist, in read-only runs too`,
    async run(ctx) {
      const url = fillPath(path.path, { [path.param]: path.id })
      const get = path.operation('get')
      if (path.creatable && get) {
        const read = await ctx.call({ method: 'GET', path: url, operationId: get.operationId })
        if (read.response.status !== 404)
          return ctx.skip(
            `GET ${url} answered ${read.response.status}, not 404: nothing is written to an object that may exist`,
          )
      }
      for (const refusal of cases) {
        const exchange = await ctx.call({
          method: refusal.method,
          path: refusal.query ? `${url}?${refusal.query}` : url,
          headers: refusal.headers,
          body: refusal.body,
          operationId: path.operation(refusal.method)?.operationId,
        })
        refusal.expect(exchange, path, `for ${refusal.what} to ${url}`)
      }
    },
  }
}

/**
 * Every operation that writes answers 401 to a request without a key, before anything else: sent without a
 * body, to IDs that do not exist. Sent only to a target that refuses a read without a key (authentication/missing's
 * request): a target that answers without one could not be trusted with writes without one either.
 */
const writesWithoutKey: ContractCheck = {
  id: 'authentication/writes-without-key',
  area: 'authentication',
  group: 'Every operation',
  title:
    'returns 401 to every operation that writes, sent without a key (no body, IDs that do not exist), in read-only runs too',
  async run(ctx) {
    const read = await ctx.call({ method: 'GET', path: '/user', key: null, operationId: 'getUser' })
    if (read.response.status !== 401)
      return ctx.skip(
        `GET /user without a key answered ${read.response.status}: no write is sent without a key to a target that answers reads without one`,
      )
    for (const operation of ctx.contract.operations.filter((op) => op.method !== 'get')) {
      const method = operation.method.toUpperCase()
      const path = fillPath(operation.path, UNKNOWN_IDS)
      const exchange = await ctx.call({ method, path, key: null, operationId: operation.operationId })
      expectError(
        exchange,
        401,
        { type: 'authentication_error', code: 'invalid_api_key' },
        `for ${method} ${operation.path} without a key`,
      )
    }
  },
}

/** Writes refused without writing: without a key, and to IDs that do not exist (one check per object path). */
export function writesRefusedChecks(operations: readonly ContractOperation[]): ContractCheck[] {
  return [...objectPaths(operations).map(unknownObjectCheck), writesWithoutKey]
}

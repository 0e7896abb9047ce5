import type { ContractOperation } from '../contract/operations.ts'
import { fillPath } from '../contract/operations.ts'
import { expectError, expectStatus } from './failure.ts'
import { createAgent } from './fixtures.ts'
import type { ContractCheck } from './types.ts'
import { objectPaths } from './writes-refused.ts'

/**
 * The contract's order of checks: "a body over 1 MiB (413, on every operation, also one that takes no body such
 * as a DELETE: nothing is done)", before the object is looked up (404 comes later). An implementation whose size
 * limit lives in its JSON body parser lets a DELETE through whatever it carries.
 */

/** Over 1 MiB (1,048,576 bytes), and not JSON: a request that cannot write on any implementation. */
const OVERSIZED = { body: 'x'.repeat(1024 * 1024 + 16), headers: { 'content-type': 'text/plain' } }
const TOO_LARGE = { type: 'invalid_request_error', code: 'payload_too_large' } as const

/** Every DELETE of the contract, to an ID that does not exist, with a body over 1 MiB: 413, not 404. */
function oversizeDeleteToUnknownIds(operations: readonly ContractOperation[]): ContractCheck {
  const paths = objectPaths(operations).filter((p) => p.methods.includes('DELETE'))
  return {
    id: 'bad-input/oversize-delete',
    area: 'bad-input',
    group: 'Bodies',
    title: `answers 413 payload_too_large to a DELETE carrying a body over 1 MiB (${paths.map((p) => p.path).join(', ')}), before looking up the ID`,
    needs: ['beyond-read-only'],
    async run(ctx) {
      for (const path of paths) {
        const url = fillPath(path.path, { [path.param]: path.id })
        const get = path.operation('get')
        // As the other writes to IDs that do not exist: nothing is sent to an object that may exist.
        if (path.creatable && get) {
          const read = await ctx.call({ method: 'GET', path: url, operationId: get.operationId })
          if (read.response.status !== 404)
            return ctx.skip(`GET ${url} answered ${read.response.status}, not 404: no DELETE is sent to it`)
        }
        const exchange = await ctx.call({
          method: 'DELETE',
          path: url,
          ...OVERSIZED,
          operationId: path.operation('delete')?.operationId,
        })
        expectError(
          exchange,
          413,
          TOO_LARGE,
          `for DELETE ${url} with a body over 1 MiB (the ID does not exist)`,
        )
      }
    },
  }
}

/** An agent's DELETE carrying a body over 1 MiB is refused whole: 413, and the agent is still there. */
const oversizeDeleteKeepsTheAgent: ContractCheck = {
  id: 'resources/agents/oversize-delete',
  area: 'resources',
  group: 'Agents',
  title: 'refuses a DELETE of an agent carrying a body over 1 MiB with 413, and deletes nothing',
  needs: ['write'],
  async run(ctx) {
    const { agent } = await createAgent(ctx)
    const path = `/agents/${agent.id}`
    const refused = await ctx.call({ method: 'DELETE', path, ...OVERSIZED, operationId: 'deleteAgent' })
    expectError(refused, 413, TOO_LARGE, `for DELETE ${path} with a body over 1 MiB`)
    const read = await ctx.call({ method: 'GET', path, operationId: 'getAgent' })
    expectStatus(read, 200, `for GET ${path} after its DELETE was refused 413: nothing is done`)
  },
}

export function oversizeDeleteChecks(operations: readonly ContractOperation[]): ContractCheck[] {
  return [oversizeDeleteToUnknownIds(operations), oversizeDeleteKeepsTheAgent]
}

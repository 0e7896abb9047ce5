import type { ContractOperation } from '../contract/operations.ts'
import { fillPath } from '../contract/operations.ts'
import { expectError } from './failure.ts'
import { UNKNOWN_IDS } from './fixtures.ts'
import type { ContractCheck } from './types.ts'

/** A well-formed value for a borrowed parameter: a number for `limit`, an ID for a cursor or a filter. */
const borrowedValue = (name: string) => (name === 'limit' ? '1' : UNKNOWN_IDS.agent_id)

/**
 * "Unknown query parameters are rejected on every operation with 400 `invalid_parameter`" (the contract, Lists
 * and pagination), also a parameter that another operation documents: the generic pagination of a framework
 * mounted on every list takes `limit` or a cursor where the contract has none (listIntegrations: "not
 * paginated (no `limit` / cursor parameters)"). For each read, each query parameter that two or more other
 * operations document and it does not, with a well-formed value: 400 naming it.
 */
export function borrowedParametersCheck(operations: readonly ContractOperation[]): ContractCheck {
  const reads = operations.filter((op) => op.method === 'get')
  const uses = new Map<string, number>()
  for (const op of reads)
    for (const p of op.parameters.filter((q) => q.in === 'query'))
      uses.set(p.name, (uses.get(p.name) ?? 0) + 1)
  const shared = [...uses].filter(([, n]) => n >= 2).map(([name]) => name)
  const cases = reads.flatMap((op) =>
    shared
      .filter((name) => !op.parameters.some((p) => p.in === 'query' && p.name === name))
      .map((name) => ({ op, name })),
  )
  return {
    id: 'bad-input/borrowed-parameters',
    area: 'bad-input',
    group: 'Query parameters',
    title: `answers 400 invalid_parameter to a query parameter another operation documents (${shared.join(', ')}) sent to a read that does not`,
    needs: ['beyond-read-only'],
    async run(ctx) {
      for (const { op, name } of cases) {
        const query = `${name}=${borrowedValue(name)}`
        const path = `${fillPath(op.path, UNKNOWN_IDS)}?${query}`
        const exchange = await ctx.call({ method: 'GET', path, operationId: op.operationId })
        expectError(
          exchange,
          400,
          { type: 'invalid_request_error', code: 'invalid_parameter', param: name },
          `for GET ${path} (${op.operationId} documents no ${name})`,
        )
      }
    },
  }
}

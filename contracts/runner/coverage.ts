import type { Contract } from '../contract/contract.ts'
import { type ContractOperation, matchOperation } from '../contract/operations.ts'
import type { Exchange } from '../http/exchange.ts'

/** One operation's row of the coverage matrix. */
export interface CoverageRow {
  operationId: string
  method: string
  path: string
  /** Every status the contract documents for the operation, and whether the run received it. */
  statuses: { status: string; exercised: boolean }[]
  /** Statuses the run received for the operation that the contract does not document. */
  undocumented: string[]
}

/** API coverage: which documented (operation, status) pairs the run's answers exercised. */
export interface Coverage {
  rows: CoverageRow[]
  /** Documented pairs the run received. */
  exercised: number
  /** Documented pairs in the contract. */
  documented: number
}

/** The documented response key an actual status falls under: `404`, else `4XX`, else `default`. */
function documentedKey(operation: ContractOperation, status: number): string | undefined {
  const exact = String(status)
  if (operation.responses.has(exact)) return exact
  const range = `${exact[0]}XX`
  if (operation.responses.has(range)) return range
  return operation.responses.has('default') ? 'default' : undefined
}

/**
 * Records every answer the run receives, by the operation it was meant for (or the one its method and path
 * match), and builds the operations x documented statuses matrix that Schemathesis and Specmatic call API
 * coverage. A 405 (a method the path does not document) counts for every operation of its path.
 */
export function createCoverage(contract: Contract, baseUrl: string) {
  const base = baseUrl.replace(/\/+$/, '')
  const seen = new Map<string, Set<string>>()
  const extra = new Map<string, Set<string>>()
  const add = (map: Map<string, Set<string>>, id: string, status: string) => {
    const set = map.get(id) ?? new Set<string>()
    set.add(status)
    map.set(id, set)
  }

  return {
    record(exchange: Exchange): void {
      const { request, response } = exchange
      const url = request.url.startsWith(base) ? request.url.slice(base.length) : request.url
      const path = url.split('?')[0] ?? url
      let operations: ContractOperation[]
      if (exchange.operationId) operations = [contract.operation(exchange.operationId)]
      else {
        const match = matchOperation(contract.operations, request.method, path)
        operations = match.operation ? [match.operation] : response.status === 405 ? match.pathOperations : []
      }
      for (const operation of operations) {
        const key = documentedKey(operation, response.status)
        if (key) add(seen, operation.operationId, key)
        else add(extra, operation.operationId, String(response.status))
      }
    },

    matrix(): Coverage {
      let exercised = 0
      let documented = 0
      const rows = contract.operations.map((operation): CoverageRow => {
        const got = seen.get(operation.operationId) ?? new Set<string>()
        const statuses = [...operation.responses.keys()].map((status) => ({
          status,
          exercised: got.has(status),
        }))
        documented += statuses.length
        exercised += statuses.filter((s) => s.exercised).length
        return {
          operationId: operation.operationId,
          method: operation.method.toUpperCase(),
          path: operation.path,
          statuses,
          undocumented: [...(extra.get(operation.operationId) ?? [])].sort(),
        }
      })
      return { rows, exercised, documented }
    },
  }
}

/** `97 of 145 documented (operation, status) pairs (67%)`. */
export function coverageFigure(coverage: Coverage): string {
  const percent = coverage.documented === 0 ? 0 : Math.round((coverage.exercised / coverage.documented) * 100)
  return `${coverage.exercised} of ${coverage.documented} documented (operation, status) pairs (${percent}%)`
}

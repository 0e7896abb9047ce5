import type { Contract } from '../contract/contract.ts'
import type { ContractOperation } from '../contract/operations.ts'
import { idPrefixes, resolveNode } from './schema-node.ts'

/**
 * What exploration reads of the contract's shapes beyond one schema: which operations list and which create,
 * the prefix of the IDs a list holds, the names of the pagination parameters. All of it from the document.
 */

/** The names of the contract's pagination parameters (`components.parameters` Limit, StartingAfter, EndingBefore). */
export function paginationNames(
  contract: Contract,
): { limit: string; after: string; before: string } | undefined {
  const parameters = (contract.document.components?.parameters ?? {}) as Record<string, { name?: string }>
  const [limit, after, before] = ['Limit', 'StartingAfter', 'EndingBefore'].map((n) => parameters[n]?.name)
  return limit && after && before ? { limit, after, before } : undefined
}

/** The size of a page asked for without `limit` (the contract's Limit parameter's default), 0 when none. */
export function defaultPageSize(contract: Contract): number {
  const parameters = (contract.document.components?.parameters ?? {}) as Record<string, { schema?: unknown }>
  const schema = resolveNode(contract.document, parameters.Limit?.schema, '#').schema as { default?: unknown }
  return typeof schema.default === 'number' ? schema.default : 0
}

/** The operations that list a collection (GET on a path without parameters, answered with `data`). */
export function listOperations(contract: Contract): ContractOperation[] {
  return contract.operations.filter((op) => {
    if (op.method !== 'get' || op.path.includes('{')) return false
    const schema = op.responses.get('200')?.schema
    return (
      schema !== undefined &&
      resolveNode(contract.document, schema, '#').schema.properties?.data !== undefined
    )
  })
}

/**
 * The account's views that are not lists: GET on a path without parameters answered without `data` (the user,
 * aggregates).
 */
export function viewOperations(contract: Contract): ContractOperation[] {
  const lists = new Set(listOperations(contract))
  return contract.operations.filter(
    (op) => op.method === 'get' && !op.path.includes('{') && !lists.has(op) && op.responses.has('200'),
  )
}

/** The prefix of the IDs a list operation lists (`agt` for `GET /agents`), from its answer's schema. */
export function listPrefix(contract: Contract, operation: ContractOperation): string | undefined {
  const schema = operation.responses.get('200')?.schema
  const data = schema ? resolveNode(contract.document, schema, '#').schema.properties?.data : undefined
  const items = data
    ? resolveNode(contract.document, resolveNode(contract.document, data, '#').schema.items, '#')
    : undefined
  const id = items?.schema.properties?.id
  return id ? idPrefixes(resolveNode(contract.document, id, '#').schema)?.[0] : undefined
}

/**
 * The path of one object of a collection (`/agents/{agent_id}` of `/agents`) that answers `method`: one segment
 * more than the collection, a parameter; undefined when the contract has none.
 */
export function itemPathOf(
  contract: Contract,
  collection: string,
  method: 'get' | 'delete',
): string | undefined {
  const paths = contract.document.paths as Record<string, Record<string, unknown>>
  return Object.keys(paths).find(
    (path) =>
      path.startsWith(`${collection}/{`) &&
      !path.slice(collection.length + 1).includes('/') &&
      !!paths[path]?.[method],
  )
}

/** The operations that create an object (POST answered 201) and give an example body. */
export function creatingOperations(contract: Contract): ContractOperation[] {
  return contract.operations.filter(
    (op) => op.method === 'post' && op.responses.has('201') && (op.requestBody?.examples.length ?? 0) > 0,
  )
}

/** An example body with each top-level `format: email` field made unique (`explore-<tag>@example.com`). */
export function uniqueEmails(
  contract: Contract,
  operation: ContractOperation,
  example: Record<string, unknown>,
  tag: string,
) {
  const schema = resolveNode(contract.document, operation.requestBody?.schema, '#').schema
  const out = { ...example }
  for (const [name, property] of Object.entries(schema.properties ?? {}))
    if (resolveNode(contract.document, property, '#').schema.format === 'email' && name in out)
      out[name] = `explore-${tag}@example.com`
  return out
}

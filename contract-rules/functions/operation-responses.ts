import {
  formatPath,
  isJsonObject,
  type JsonObject,
  type JsonPath,
  objectEntries,
} from '../../scripts/lib/json.ts'
import { resolveLocalRef } from '../../scripts/lib/resolve-local-ref.ts'
import { walkOpenApi } from '../../scripts/lib/walk-openapi.ts'

/** A response of an operation, with `$ref`s followed. */
export interface OperationResponse {
  /** The status code key (`200`, `4XX`, `default`). */
  status: string
  /** The Response Object after following `$ref`s; undefined when a ref does not resolve. */
  response: JsonObject | undefined
  /** Where the Response Object is written (a component, for a `$ref`). */
  path: JsonPath
  /** Where the operation lists it. */
  usedAt: JsonPath
  /** The `$ref`s followed to reach it. */
  via: string[]
}

/**
 * Every response of every operation of the document that the API itself sends, `$ref`s followed. The
 * responses of `webhooks` are the receiver's answers, not the API's, and are left out.
 */
export function operationResponses(document: JsonObject): OperationResponse[] {
  const found: OperationResponse[] = []
  walkOpenApi(document, {
    operation: (operation, operationPath) => {
      if (operationPath[0] === 'webhooks') return
      for (const [status, value] of objectEntries(operation.responses)) {
        const usedAt = [...operationPath, 'responses', status]
        const resolved = resolveLocalRef(document, value, usedAt)
        const response = isJsonObject(resolved.value) ? resolved.value : undefined
        found.push({ status, response, path: resolved.path, usedAt, via: resolved.via })
      }
    },
  })
  return found
}

/** Groups responses by where they are written, so a shared component is reported once. */
export function groupByDefinition(entries: OperationResponse[]): OperationResponse[][] {
  const groups = new Map<string, OperationResponse[]>()
  for (const entry of entries) {
    const key = entry.path.join('\u0000')
    groups.set(key, [...(groups.get(key) ?? []), entry])
  }
  return [...groups.values()]
}

/**
 * Names a response for a message: "the 404 response of paths["/x"].get", or for a shared
 * component "#/components/responses/NotFound (404 of 12 operations)".
 */
export function describeResponse(group: OperationResponse[]): string {
  const [first] = group
  if (!first) return 'a response'
  const ref = first.via.at(-1)
  if (ref) {
    const statuses = [...new Set(group.map((entry) => entry.status))].join('/')
    return `${ref} (${statuses} of ${group.length} operation${group.length === 1 ? '' : 's'})`
  }
  return `the ${first.status} response of ${formatPath(first.usedAt.slice(0, -2))}`
}

import type { ValidateFunction } from 'ajv'
import { createContractAjv } from '../../../openapi/contract-ajv.ts'
import { v1Document } from '../../../openapi/generated/v1.document.ts'

type Operations = Record<
  string,
  Record<string, { operationId?: string; responses?: Record<string, unknown> }>
>

/** Every v1 operation: id, method, path, and the statuses it documents. */
export const v1Operations = Object.entries(v1Document.paths as unknown as Operations).flatMap(
  ([path, item]) =>
    Object.entries(item)
      .filter(([, op]) => typeof op === 'object' && op?.operationId)
      .map(([method, op]) => ({
        operationId: op.operationId as string,
        method: method.toUpperCase(),
        path,
        statuses: Object.keys(op.responses ?? {}).map(Number),
      })),
)

const compiled = new Map<string, ValidateFunction>()

/**
 * What is wrong with a response body for an operation and status, checked with a validator compiled here from
 * the contract (not the engine's): a documented status against its response schema, 500/502/503/504 (never
 * documented per operation) against the `Error` schema.
 */
export function answerProblems(operationId: string, status: number, body: unknown): string[] {
  const operation = v1Operations.find((o) => o.operationId === operationId)
  if (!operation) return [`no operation ${operationId}`]
  const documented = operation.statuses.includes(status)
  const key = documented ? `${operationId}:${status}` : 'Error'
  let validate = compiled.get(key)
  if (!validate) {
    const pointer = `/paths/${operation.path.replace(/\//g, '~1')}/${operation.method.toLowerCase()}/responses/${status}`
    const response = documented ? resolve(pointer) : undefined
    const schema = documented
      ? (response as { content: Record<string, { schema: unknown }> }).content['application/json']?.schema
      : { $ref: '#/components/schemas/Error' }
    validate = createContractAjv(v1Document, `urn:test:answer:${key}`).compile(schema)
    compiled.set(key, validate)
  }
  if (validate(body)) return []
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}`)
}

/** A JSON pointer into the v1 document, following a `$ref` where it ends on one. */
function resolve(pointer: string): unknown {
  let node: unknown = v1Document
  for (const part of pointer.split('/').slice(1))
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')]
  const ref = (node as { $ref?: string }).$ref
  return ref ? resolve(ref.slice(1)) : node
}

import { loadContractDocument, type OpenApiDocument, resolveRef } from './load-contract.ts'
import { type ContractOperation, listOperations } from './operations.ts'
import { createSchemaValidator, type SchemaValidator } from './schema-validator.ts'
import { type ContractWebhook, listWebhooks } from './webhooks.ts'

/** Everything the checks know about the API, all read from the contract document. */
export interface Contract {
  document: OpenApiDocument
  operations: ContractOperation[]
  /** The top-level `webhooks`: the events the platform POSTs to receivers, with their body schemas. */
  webhooks: ContractWebhook[]
  validator: SchemaValidator
  /** An operation by operationId; throws for an unknown id (a check out of step with the contract). */
  operation(operationId: string): ContractOperation
  /** The permission scopes (`components.schemas.Scope.enum`), in the contract's order. */
  scopes: string[]
  /** A component schema, resolved (e.g. `Agent`). */
  schema(name: string): Record<string, unknown>
  /** A shared response's JSON schema (`components.responses.<name>`), e.g. `NotFound`. */
  responseSchema(name: string): unknown
  /** Agent fields a secret key always sees but that are not `required` (omitted for publishable keys). */
  sensitiveAgentFields: string[]
}

const contracts = new Map<string, Contract>()

/**
 * Loads the contract and compiles its validators, once per path: sessions share it, so each schema is
 * compiled once per process however many runs open (the document is cached by path already).
 */
export function createContract(path?: string): Contract {
  const key = path ?? ''
  const cached = contracts.get(key)
  if (cached) return cached
  const made = buildContract(path)
  contracts.set(key, made)
  return made
}

function buildContract(path?: string): Contract {
  const document = loadContractDocument(path)
  const operations = listOperations(document)
  const validator = createSchemaValidator(document)
  const byId = new Map(operations.map((op) => [op.operationId, op]))
  const schema = (name: string) =>
    resolveRef<Record<string, unknown>>(document, { $ref: `#/components/schemas/${name}` })
  const agent = schema('Agent') as { properties?: Record<string, unknown>; required?: string[] }
  const required = new Set(agent.required ?? [])
  return {
    document,
    operations,
    webhooks: listWebhooks(document),
    validator,
    operation(operationId) {
      const found = byId.get(operationId)
      if (!found) throw new Error(`The contract has no operation '${operationId}'.`)
      return found
    },
    scopes: ((schema('Scope') as { enum?: string[] }).enum ?? []).slice(),
    schema,
    responseSchema(name) {
      const response = resolveRef<{ content?: Record<string, { schema?: unknown }> }>(document, {
        $ref: `#/components/responses/${name}`,
      })
      return response.content?.['application/json']?.schema
    },
    sensitiveAgentFields: Object.keys(agent.properties ?? {}).filter((name) => !required.has(name)),
  }
}

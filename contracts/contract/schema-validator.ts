import type { ValidateFunction } from 'ajv'
import { createContractAjv } from '../../openapi/contract-ajv.ts'
import type { OpenApiDocument } from './load-contract.ts'

const ROOT_ID = 'urn:voice-api-kit:contract-suite'

/** Compiles JSON Schemas of the contract (Ajv 2020-12 with formats), each once. */
export function createSchemaValidator(document: OpenApiDocument) {
  // An Ajv of the suite's own, compiled from the contract it loaded: it shares no compiled state with the mock.
  const contract = createContractAjv(document, ROOT_ID)
  const compiled = new WeakMap<object, ValidateFunction>()
  const components = new Map<string, object>()

  return {
    /** Problems of `value` against `schema` (a schema object taken from the contract); empty when valid. */
    validate(schema: unknown, value: unknown): string[] {
      if (!schema || typeof schema !== 'object') return []
      let validate = compiled.get(schema)
      if (!validate) {
        validate = contract.compile(schema)
        compiled.set(schema, validate)
      }
      if (validate(value)) return []
      return (validate.errors ?? [])
        .filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'allOf')
        .slice(0, 8)
        .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${paramsOf(e.params)}`)
    },
    /** A component schema by name (`#/components/schemas/<name>`), for validating parts of bodies. */
    component(name: string): unknown {
      let schema = components.get(name)
      if (!schema) {
        schema = { $ref: `#/components/schemas/${name}` }
        components.set(name, schema)
      }
      return schema
    },
  }
}

function paramsOf(params: Record<string, unknown>): string {
  const interesting = params.additionalProperty ?? params.allowedValues ?? params.pattern ?? params.format
  return interesting === undefined ? '' : ` (${JSON.stringify(interesting)})`
}

export type SchemaValidator = ReturnType<typeof createSchemaValidator>

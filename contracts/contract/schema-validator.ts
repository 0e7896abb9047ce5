import type { ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { OpenApiDocument } from './load-contract.ts'

// ajv-formats is CommonJS; its default export arrives wrapped under some loaders.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020

const ROOT_ID = 'urn:voice-api-kit:contract-suite'

/** Deep copy of a schema whose local `$ref`s point into the registered contract. */
function rebase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rebase)
  if (!value || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value))
    out[key] =
      key === '$ref' && typeof child === 'string' && child.startsWith('#/') ? ROOT_ID + child : rebase(child)
  return out
}

/** Compiles JSON Schemas of the contract (Ajv 2020-12 with formats), each once. */
export function createSchemaValidator(document: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false })
  addFormats(ajv)
  ajv.addSchema({ $id: ROOT_ID, components: rebase(document.components ?? {}) })
  const compiled = new WeakMap<object, ValidateFunction>()
  const components = new Map<string, object>()

  return {
    /** Problems of `value` against `schema` (a schema object taken from the contract); empty when valid. */
    validate(schema: unknown, value: unknown): string[] {
      if (!schema || typeof schema !== 'object') return []
      let validate = compiled.get(schema)
      if (!validate) {
        validate = ajv.compile(rebase(schema) as object)
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

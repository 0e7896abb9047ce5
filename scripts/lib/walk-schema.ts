import { isJsonObject, type JsonObject, type JsonPath, objectEntries } from './json.ts'

/** Keywords whose value is one subschema. */
const SINGLE = [
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
] as const

/** Keywords whose value is an array of subschemas. */
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'] as const

/** Keywords whose value maps names to subschemas. */
const MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'] as const

/** Called for a schema and each of its subschemas, with its path in the document. */
export type SchemaVisitor = (schema: JsonObject, path: JsonPath) => void

/**
 * Visits a JSON Schema (2020-12) and every subschema it contains, depth first. `$ref`s are not
 * followed: a referenced schema is visited where it is defined. Boolean schemas are skipped.
 */
export function walkSchema(schema: unknown, path: JsonPath, visit: SchemaVisitor): void {
  if (!isJsonObject(schema)) return
  visit(schema, path)
  for (const keyword of SINGLE) walkSchema(schema[keyword], [...path, keyword], visit)
  for (const keyword of LISTS) {
    const list = schema[keyword]
    if (!Array.isArray(list)) continue
    for (const [index, item] of list.entries()) walkSchema(item, [...path, keyword, index], visit)
  }
  for (const keyword of MAPS) {
    for (const [name, sub] of objectEntries(schema[keyword])) walkSchema(sub, [...path, keyword, name], visit)
  }
}

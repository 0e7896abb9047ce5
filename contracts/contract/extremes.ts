import { flatten, type Schema } from './breakages.ts'
import type { OpenApiDocument } from './load-contract.ts'

/**
 * Request bodies at the edges of what a schema allows: every bounded field of a body at its lowest or at its
 * highest allowed value at once (numbers at `minimum` / `maximum`, free text of `minLength` / `maxLength`
 * characters, maps of `maxProperties` entries whose keys and values are as long as allowed, arrays of
 * `maxItems` items, the first or the last value of an enum). JSON Schema's bounds are inclusive (draft 2020-12,
 * sections 6.2 and 6.3): a target must accept each of them, and a check that did `<` where `<=` was meant shows
 * as a 422 naming the field. Derived from the contract, so that a new bound needs no new code.
 */

export type Edge = 'lowest' | 'highest'

const numberOf = (schema: Schema, key: string) =>
  typeof schema[key] === 'number' ? (schema[key] as number) : undefined

const typesOf = (schema: Schema) => (schema.type === undefined ? [] : [schema.type].flat())

/** The values of an enum, given directly or as the enums of an `anyOf`. */
function enumOf(document: OpenApiDocument, schema: Schema): unknown[] | undefined {
  const values = schema.enum ?? schema.anyOf?.flatMap((s) => flatten(document, s).enum ?? [])
  return values && values.length > 0 ? values.filter((v) => v !== null) : undefined
}

/** Text of exactly `length` characters that starts with `start` (cut or padded with `fill`). */
const textOf = (length: number, start = '', fill = 'x') =>
  (start + fill.repeat(Math.max(0, length - start.length))).slice(0, length)

/** A map's entries at the edge: as many as allowed, keys and values as long as allowed (or the fewest, shortest). */
function mapAt(document: OpenApiDocument, schema: Schema, edge: Edge): Record<string, string> | undefined {
  const values = flatten(document, schema.additionalProperties)
  if (!typesOf(values).includes('string') || values.pattern || values.format || values.enum) return undefined
  const names = schema.propertyNames ? flatten(document, schema.propertyNames) : {}
  if (names.pattern || names.format) return undefined
  const keyLength =
    edge === 'highest' ? (numberOf(names, 'maxLength') ?? 40) : Math.max(1, numberOf(names, 'minLength') ?? 1)
  const valueLength =
    edge === 'highest' ? (numberOf(values, 'maxLength') ?? 100) : (numberOf(values, 'minLength') ?? 0)
  const count = edge === 'highest' ? (numberOf(schema, 'maxProperties') ?? 3) : 1
  const out: Record<string, string> = {}
  // Keys told apart by their first characters (a one-character key is the first letter alone).
  for (let i = 0; i < count; i++)
    out[textOf(keyLength, `k${i}`.slice(0, keyLength), 'k')] = textOf(valueLength)
  if (Object.keys(out).length !== count) return undefined
  return out
}

/** The value of one property at the edge, or undefined when it has no bound this knows how to reach. */
function valueAt(document: OpenApiDocument, schema: Schema, edge: Edge, base: unknown): unknown {
  const enumValues = enumOf(document, schema)
  if (enumValues) return edge === 'highest' ? enumValues.at(-1) : enumValues[0]
  const types = typesOf(schema)
  if (types.includes('integer') || types.includes('number')) {
    const bound = edge === 'highest' ? numberOf(schema, 'maximum') : numberOf(schema, 'minimum')
    return bound
  }
  if (types.includes('string')) {
    if (schema.pattern || schema.format) return undefined
    const length = edge === 'highest' ? numberOf(schema, 'maxLength') : numberOf(schema, 'minLength')
    if (length === undefined || (edge === 'lowest' && length === 0)) return undefined
    return textOf(length, typeof base === 'string' ? base : '')
  }
  if (types.includes('object') && schema.additionalProperties && !schema.properties)
    return mapAt(document, schema, edge)
  if (types.includes('array')) {
    const items = schema.items ? flatten(document, schema.items) : undefined
    const values = items ? enumOf(document, items) : undefined
    const most = numberOf(schema, 'maxItems')
    if (!values) return undefined
    if (edge === 'lowest') return numberOf(schema, 'minItems') ? undefined : []
    return values.slice(0, most ?? values.length)
  }
  return undefined
}

/**
 * `base` (a valid body) with every bounded field at `edge`, nested objects included (the fields of `base`'s own
 * nested object, or of none). Fields without a bound keep the value `base` gives them.
 */
export function bodyAtEdge(
  document: OpenApiDocument,
  rawSchema: unknown,
  base: Record<string, unknown>,
  edge: Edge,
): Record<string, unknown> {
  const schema = flatten(document, rawSchema)
  const out: Record<string, unknown> = { ...base }
  for (const [name, raw] of Object.entries(schema.properties ?? {})) {
    const property = flatten(document, raw)
    if (property.readOnly === true) continue
    if (property.properties) {
      const nested = base[name]
      // A nested object the base leaves out stays out: its required fields are not this function's to invent.
      if (nested && typeof nested === 'object' && !Array.isArray(nested))
        out[name] = bodyAtEdge(document, property, nested as Record<string, unknown>, edge)
      continue
    }
    const value = valueAt(document, property, edge, base[name])
    if (value !== undefined) out[name] = value
  }
  return out
}

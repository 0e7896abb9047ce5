import fc from 'fast-check'
import type { OpenApiDocument } from '../contract/load-contract.ts'
import { resolveNode, type Schema } from './schema-node.ts'

/**
 * A string value chosen among those the run already sent or received for a field of the same name, at run
 * time (e-mail addresses to invite twice, in another case; names to reuse): uniqueness and case rules are
 * found that no random value would meet. `fallback` is sent when nothing was seen yet.
 */
export class SeenValue {
  constructor(
    readonly field: string,
    readonly pick: number,
    readonly upper: boolean,
    readonly fallback: string,
  ) {}
  toJSON(): string {
    return this.fallback
  }
}

const num = (value: unknown) => (typeof value === 'number' ? value : undefined)

/** Small whole numbers near the bounds are where lists and limits break; big ones are rare. */
function integerArbitrary(schema: Schema): fc.Arbitrary<number> {
  const min = num(schema.minimum) ?? num(schema.exclusiveMinimum) ?? 0
  const max = num(schema.maximum) ?? num(schema.exclusiveMaximum) ?? min + 100_000
  return fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min, max: Math.min(max, min + 5) }) },
    { weight: 2, arbitrary: fc.constantFrom(min, max) },
    { weight: 3, arbitrary: fc.integer({ min, max }) },
  )
}

/** Numbers with two decimals at most, so that answers read well. */
function numberArbitrary(schema: Schema): fc.Arbitrary<number> {
  const min = num(schema.minimum) ?? num(schema.exclusiveMinimum) ?? 0
  const max = num(schema.maximum) ?? num(schema.exclusiveMaximum) ?? min + 1000
  return fc.oneof(
    fc.constantFrom(min, max),
    fc.integer({ min: Math.ceil(min * 100), max: Math.floor(max * 100) }).map((n) => n / 100),
  )
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz'
const word = fc.string({ unit: fc.constantFrom(...LOWER), minLength: 3, maxLength: 8 })

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const minLength = num(schema.minLength) ?? 0
  const maxLength = num(schema.maxLength) ?? 40
  const fits = (s: string) => s.length >= minLength && s.length <= maxLength
  if (schema.format === 'email')
    return fc
      .tuple(word, fc.nat({ max: 999 }), fc.constantFrom('example.com', 'example.org'))
      .map(([name, n, domain]) => `${name}${n}@${domain}`)
  if (schema.format === 'uri' || schema.format === 'uri-reference')
    return fc
      .tuple(word, fc.constantFrom('hooks', 'events', 'voice'))
      .map(([name, path]) => `https://${name}.example.com/${path}`)
  if (schema.format === 'date-time')
    return fc
      .integer({ min: Date.UTC(2025, 0, 1) / 1000, max: Date.UTC(2027, 0, 1) / 1000 })
      .map((s) => new Date(s * 1000).toISOString().replace('.000Z', 'Z'))
  if (typeof schema.pattern === 'string')
    return fc.stringMatching(new RegExp(schema.pattern, 'u'), { size: 'xsmall' }).filter(fits)
  return fc.string({ minLength: Math.max(minLength, 1), maxLength: Math.min(maxLength, 24) }).filter(fits)
}

/**
 * Values that satisfy a schema of the contract (types, enums, bounds, required fields, patterns, formats,
 * sizes of maps and arrays), most of them small, for request bodies and parameters. Strings of a property may
 * instead be a `SeenValue` (reused at run time). Derived from the schema alone: a new field is generated
 * without any change here.
 */
export function valueArbitrary(
  document: OpenApiDocument,
  input: unknown,
  field = '',
  depth = 0,
): fc.Arbitrary<unknown> {
  const { schema } = resolveNode(document, input, '#')
  if (depth > 5) return fc.constant(null)
  const next = (s: unknown, name = field) => valueArbitrary(document, s, name, depth + 1)
  if ('const' in schema) return fc.constant(schema.const)
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum)
  const branches = schema.anyOf ?? schema.oneOf
  if (Array.isArray(branches)) return fc.oneof(...branches.map((b) => next(b)))
  if (Array.isArray(schema.type)) {
    const types = schema.type
    return fc.oneof(
      ...types.map((type) => ({
        // null is one choice among the types (what clears a field, or disconnects), not the usual one
        weight: type === 'null' ? 2 : 3,
        arbitrary: next({ ...schema, type }),
      })),
    )
  }
  switch (schema.type) {
    case 'string': {
      const plain = stringArbitrary(schema)
      if (!field || schema.enum) return plain
      return fc.oneof(
        { weight: 5, arbitrary: plain },
        {
          weight: 1,
          arbitrary: fc
            .tuple(fc.nat(), fc.boolean(), plain)
            .map(([pick, upper, fallback]) => new SeenValue(field, pick, upper, fallback)),
        },
      )
    }
    case 'integer':
      return integerArbitrary(schema)
    case 'number':
      return numberArbitrary(schema)
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array': {
      const maxLength = Math.min(num(schema.maxItems) ?? 3, 3)
      const minLength = Math.min(num(schema.minItems) ?? 0, maxLength)
      const items = next(schema.items)
      return schema.uniqueItems
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(items, { minLength, maxLength })
    }
    default:
      return objectArbitrary(document, schema, next)
  }
}

function objectArbitrary(
  document: OpenApiDocument,
  schema: Schema,
  next: (s: unknown, name?: string) => fc.Arbitrary<unknown>,
): fc.Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, unknown>
  const names = Object.keys(properties)
  const minProperties = num(schema.minProperties) ?? 0
  if (names.length === 0) {
    if (schema.additionalProperties === undefined || schema.additionalProperties === false)
      return fc.constant({})
    const maxKeys = Math.min(num(schema.maxProperties) ?? 3, 3)
    const keys = resolveNode(
      document,
      schema.propertyNames ?? { type: 'string', minLength: 1, maxLength: 12 },
      '#',
    )
    const keyArbitrary = (
      typeof keys.schema.pattern === 'string' ? stringArbitrary(keys.schema) : word
    ) as fc.Arbitrary<string>
    return fc.dictionary(keyArbitrary, next(schema.additionalProperties, ''), {
      minKeys: Math.min(minProperties, maxKeys),
      maxKeys,
    })
  }
  const record = Object.fromEntries(names.map((name) => [name, next(properties[name], name)]))
  const required = (schema.required ?? []).filter((name) => names.includes(name))
  return fc
    .record(record, { requiredKeys: required })
    .filter((value) => Object.keys(value as object).length >= minProperties)
}

/** Replaces each `SeenValue` of a generated value by a value of its field seen so far (or its fallback). */
export function resolveSeen(value: unknown, seen: (field: string) => readonly string[]): unknown {
  if (value instanceof SeenValue) {
    const pool = seen(value.field)
    const picked = pool.length > 0 ? (pool[value.pick % pool.length] as string) : value.fallback
    return value.upper ? picked.toUpperCase() : picked
  }
  if (Array.isArray(value)) return value.map((item) => resolveSeen(item, seen))
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveSeen(v, seen)]))
  return value
}

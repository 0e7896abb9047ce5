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
/** A short lower-case word. */
export const word = fc.string({ unit: fc.constantFrom(...LOWER), minLength: 3, maxLength: 8 })

/** A string's length as JSON Schema counts it: in code points, not UTF-16 units. */
const codePoints = (s: string) => [...s].length

/** Longer bounds than this are not generated at their edge (a body of a few hundred kilobytes tells no more). */
const LONGEST_EDGE = 100_000

/**
 * `s` lengthened to `length` code points by repeating its last character, when the result still matches
 * `pattern` (a character class with a bound: `^[a-z0-9_]{1,40}$`); `s` itself otherwise.
 */
function stretched(s: string, length: number, pattern: RegExp): string {
  const last = [...s].at(-1)
  if (last === undefined || codePoints(s) >= length) return s
  const longer = s + last.repeat(length - codePoints(s))
  return pattern.test(longer) ? longer : s
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const minLength = num(schema.minLength) ?? 0
  const maxLength = num(schema.maxLength) ?? 40
  const fits = (s: string) => codePoints(s) >= minLength && codePoints(s) <= maxLength
  if (schema.format === 'email')
    return fc
      .tuple(word, fc.nat({ max: 999 }), fc.constantFrom('example.com', 'example.org'))
      .map(([name, n, domain]) => `${name}${n}@${domain}`)
  if (schema.format === 'uri' || schema.format === 'uri-reference') {
    const plain = fc
      .tuple(word, fc.constantFrom('hooks', 'events', 'voice'))
      .map(([name, path]) => `https://${name}.example.com/${path}`)
    // The other forms a URL takes: http, a port, an address or localhost for the host, a query.
    const other = fc
      .tuple(
        word,
        fc.constantFrom('http', 'https'),
        fc.constantFrom('name', 'localhost', '127.0.0.1', '[::1]'),
        fc.constantFrom('', ':3000', ':8443'),
        fc.constantFrom('/hooks', '/', '/events?source=explore'),
      )
      .map(
        ([name, scheme, host, port, path]) =>
          `${scheme}://${host === 'name' ? `${name}.example.com` : host}${port}${path}`,
      )
    const uri = fc.oneof({ weight: 3, arbitrary: plain }, { weight: 1, arbitrary: other })
    if (typeof schema.maxLength !== 'number' || maxLength > LONGEST_EDGE) return uri
    // As long as the bound allows (a path that long), where a shorter column or check shows.
    const longest = uri.map((s) =>
      `${s}/${'a'.repeat(Math.max(0, maxLength - codePoints(s) - 1))}`.slice(0, maxLength),
    )
    return fc.oneof({ weight: 5, arbitrary: uri }, { weight: 1, arbitrary: longest })
  }
  if (schema.format === 'date-time')
    return fc
      .integer({ min: Date.UTC(2025, 0, 1) / 1000, max: Date.UTC(2027, 0, 1) / 1000 })
      .map((s) => new Date(s * 1000).toISOString().replace('.000Z', 'Z'))
  const bounded = typeof schema.maxLength === 'number' && maxLength <= LONGEST_EDGE
  if (typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern, 'u')
    const matching = fc.stringMatching(pattern, { size: 'xsmall' }).filter(fits)
    if (!bounded) return matching
    // As long as the bound allows, where an off-by-one in a length check shows.
    return fc.oneof(
      { weight: 5, arbitrary: matching },
      { weight: 1, arbitrary: matching.map((s) => stretched(s, maxLength, pattern)) },
    )
  }
  const plain = fc
    .string({ minLength: Math.max(minLength, 1), maxLength: Math.min(maxLength, 24) })
    .filter(fits)
  // Any printable character, astral ones (emoji, CJK extensions) included: stored and answered as sent.
  const wide = fc
    .string({ unit: 'grapheme', minLength: Math.max(minLength, 1), maxLength: Math.min(maxLength, 12) })
    .filter(fits)
  const edges = [
    ...(bounded ? [fc.string({ minLength: maxLength, maxLength })] : []),
    // The shortest the schema allows: the empty string where it may be empty.
    ...(minLength !== 1 ? [fc.string({ minLength, maxLength: minLength })] : []),
  ]
  return fc.oneof(
    { weight: 8, arbitrary: plain },
    { weight: 1, arbitrary: wide },
    ...edges.map((arbitrary) => ({ weight: 1, arbitrary })),
  )
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
      const maxItems = num(schema.maxItems)
      const items = next(schema.items)
      const arrays = (min: number, max: number) =>
        schema.uniqueItems
          ? fc.uniqueArray(items, { minLength: min, maxLength: max, selector: (v) => JSON.stringify(v) })
          : fc.array(items, { minLength: min, maxLength: max })
      const maxLength = Math.min(maxItems ?? 3, 3)
      const small = arrays(Math.min(num(schema.minItems) ?? 0, maxLength), maxLength)
      // As many items as the bound allows, now and then, where it is small enough to send (and, for unique
      // items of an enum, as many as it has values).
      const values = resolveNode(document, schema.items, '#').schema.enum
      const most = Math.min(maxItems ?? 0, schema.uniqueItems && Array.isArray(values) ? values.length : 100)
      return most > 3
        ? fc.oneof({ weight: 6, arbitrary: small }, { weight: 1, arbitrary: arrays(most, most) })
        : small
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
    const maxProperties = num(schema.maxProperties)
    const maxKeys = Math.min(maxProperties ?? 3, 3)
    const keys = resolveNode(
      document,
      schema.propertyNames ?? { type: 'string', minLength: 1, maxLength: 12 },
      '#',
    )
    // Readable words most of the time; else any name the schema allows, up to its longest, and names a
    // JavaScript object holds already (`__proto__`: a valid key, which some JSON parsers refuse or drop).
    const keyArbitrary =
      typeof keys.schema.pattern === 'string'
        ? stringArbitrary(keys.schema)
        : fc.oneof(
            { weight: 8, arbitrary: word },
            { weight: 2, arbitrary: stringArbitrary(keys.schema) },
            { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString') },
          )
    const values = next(schema.additionalProperties, '')
    const small = fc.dictionary(keyArbitrary, values, { minKeys: Math.min(minProperties, maxKeys), maxKeys })
    // As many members as the bound allows, now and then.
    const roomy = typeof keys.schema.pattern !== 'string' && (num(keys.schema.maxLength) ?? 12) >= 12
    return roomy && maxProperties !== undefined && maxProperties > 3 && maxProperties <= 100
      ? fc.oneof(
          { weight: 6, arbitrary: small },
          {
            weight: 1,
            arbitrary: fc.dictionary(
              fc.tuple(word, fc.nat({ max: 9999 })).map(([w, n]) => `${w}${n}`),
              values,
              { minKeys: maxProperties, maxKeys: maxProperties },
            ),
          },
        )
      : small
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

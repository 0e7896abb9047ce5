import { type OpenApiDocument, resolveRef } from './load-contract.ts'

/** One way to break a request body, and the field the 422 must name. */
export interface Breakage {
  description: string
  body: Record<string, unknown>
  /** The dotted path the 422's `errors[].param` must name. */
  param: string
  /** Acceptable `errors[].code` values (several where a value breaks more than one rule). */
  codes: string[]
}

/** A JSON Schema object, as far as the breakages, the edges and the checks read it. */
export type Schema = Record<string, unknown> & {
  type?: string | string[]
  enum?: unknown[]
  properties?: Record<string, unknown>
  required?: string[]
  additionalProperties?: unknown
  items?: unknown
  allOf?: unknown[]
  anyOf?: unknown[]
}

/** Resolves `$ref`s and single-branch `allOf`s into one schema object. */
export function flatten(document: OpenApiDocument, value: unknown): Schema {
  let schema = resolveRef<Schema>(document, value)
  if (schema.allOf && schema.allOf.length === 1) {
    const { allOf, ...rest } = schema
    schema = { ...flatten(document, allOf[0]), ...rest }
  }
  return schema
}

function typesOf(document: OpenApiDocument, schema: Schema): string[] {
  if (schema.type) return Array.isArray(schema.type) ? schema.type : [schema.type]
  if (schema.anyOf) return schema.anyOf.flatMap((s) => typesOf(document, flatten(document, s)))
  if (schema.enum) return [...new Set(schema.enum.map((v) => (v === null ? 'null' : typeof v)))]
  return []
}

/** A value of a JSON type the schema does not allow. */
function wrongType(types: string[]): unknown {
  if (!types.includes('number') && !types.includes('integer')) return 12345
  if (!types.includes('string')) return 'not-a-number'
  return ['x']
}

/** Values that break one keyword of a property schema each. */
interface ValueBreakage {
  value: unknown
  what: string
  codes: string[]
  /** Path below the property that the error names (`.0` for the first item of an array). */
  suffix?: string
}

/** The breakages that write a body's boolean or number as a string. */
const STRING_FORMS = ['the string "false"', 'a number written as a string'] as const

/** Valid values of a format, of kinds a pattern may narrow out (another scheme, no host, a local domain). */
const FORMAT_VALUES: Record<string, readonly string[]> = {
  uri: [
    'ftp://files.example.com/hook',
    'wss://stream.example.com/events',
    'urn:example:contract',
    'mailto:contract@example.com',
  ],
  email: ['contract@localhost', 'contract+tag@example.com', '"contract suite"@example.com'],
}

function valueBreakages(document: OpenApiDocument, schema: Schema): ValueBreakage[] {
  const out: ValueBreakage[] = []
  const types = typesOf(document, schema)
  if (types.length > 0) out.push({ value: wrongType(types), what: 'of the wrong type', codes: ['type'] })
  if (types.length > 0 && !types.includes('null')) out.push({ value: null, what: 'null', codes: ['type'] })
  // What a form or a framework's coercion turns into the type: a switch or a number written as a string (in a
  // body only: a query string has nothing but strings).
  if (types.includes('boolean') && !types.includes('string'))
    out.push({ value: 'false', what: STRING_FORMS[0], codes: ['type'] })
  if ((types.includes('integer') || types.includes('number')) && !types.includes('string'))
    out.push({ value: '5', what: STRING_FORMS[1], codes: ['type'] })
  if (types.includes('integer') && !types.includes('number'))
    out.push({ value: 1.5, what: 'not an integer', codes: ['type'] })
  const enumValues = schema.enum ?? schema.anyOf?.flatMap((s) => flatten(document, s).enum ?? [])
  if (enumValues && enumValues.length > 0)
    out.push({ value: 'not_a_valid_value', what: 'outside the enum', codes: ['enum'] })
  const num = (key: string) => (typeof schema[key] === 'number' ? (schema[key] as number) : undefined)
  const min = num('minimum') ?? num('exclusiveMinimum')
  const max = num('maximum') ?? num('exclusiveMaximum')
  if (min !== undefined) out.push({ value: min - 1, what: 'below the minimum', codes: ['minimum'] })
  if (max !== undefined) out.push({ value: max + 1, what: 'above the maximum', codes: ['maximum'] })
  const minLength = num('minLength')
  const maxLength = num('maxLength')
  const stringRules = ['pattern', 'format']
  // One character short of the bound (empty only where the bound is 1): an implementation may refuse an empty
  // value for being empty and let a short one through.
  if (minLength && minLength > 0)
    out.push({ value: 'x'.repeat(minLength - 1), what: 'too short', codes: ['min_length', ...stringRules] })
  if (maxLength !== undefined)
    out.push({ value: 'x'.repeat(maxLength + 1), what: 'too long', codes: ['max_length', ...stringRules] })
  if (typeof schema.format === 'string' && ['email', 'uri', 'date-time'].includes(schema.format))
    out.push({
      value: 'not a valid value',
      what: `not a valid ${schema.format}`,
      codes: ['format', 'pattern'],
    })
  else if (typeof schema.pattern === 'string') {
    // The first of a few values that the pattern refuses: punctuation where IDs and words are asked for, a space
    // where printable characters are (an Idempotency-Key of two words), a letter outside ASCII, a tab.
    const pattern = new RegExp(schema.pattern, 'u')
    const refused = ['!!', 'two words', 'é', '\t'].find((value) => !pattern.test(value))
    if (refused !== undefined)
      out.push({ value: refused, what: 'not matching the pattern', codes: ['pattern'] })
  }
  // A value of the format that the pattern narrows out (a URL of another scheme where only http and https are
  // allowed): a target that checks the format alone lets it through.
  const ofFormat = typeof schema.format === 'string' ? FORMAT_VALUES[schema.format] : undefined
  if (ofFormat && typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern, 'u')
    const refused = ofFormat.find((value) => !pattern.test(value))
    if (refused !== undefined)
      out.push({ value: refused, what: `a valid ${schema.format} the pattern refuses`, codes: ['pattern'] })
  }
  const maxItems = num('maxItems')
  const items = schema.items ? flatten(document, schema.items) : undefined
  if (maxItems !== undefined && items?.enum) {
    const values = Array.from({ length: maxItems + 1 }, (_, i) => items.enum?.[i % (items.enum?.length ?? 1)])
    out.push({ value: values, what: 'with too many items', codes: ['max_items', 'unique_items'] })
  }
  if (schema.uniqueItems === true && items?.enum)
    out.push({ value: [items.enum[0], items.enum[0]], what: 'with a repeated item', codes: ['unique_items'] })
  if (items?.enum)
    out.push({
      value: ['not_a_valid_value'],
      what: 'with an item outside the enum',
      codes: ['enum'],
      suffix: '.0',
    })
  if (num('minProperties') && types.includes('object'))
    out.push({ value: {}, what: 'empty', codes: ['min_properties'] })
  const maxProperties = num('maxProperties')
  // Values of 8 characters: valid for every string map of the contract (metadata, config, credentials).
  if (maxProperties !== undefined && types.includes('object'))
    out.push({
      value: Object.fromEntries(
        Array.from({ length: maxProperties + 1 }, (_, i) => [`key_${i}`, 'contract']),
      ),
      what: 'with too many properties',
      codes: ['max_properties'],
    })
  return out
}

/**
 * Breakages of a request body derived from its schema, one field at a time: each required field missing,
 * each property of a wrong type, out of range, outside its enum, of a bad format; an unknown field; and the
 * same one level down in nested objects. `base` is a valid body that each breakage changes in one place.
 */
export function bodyBreakages(
  document: OpenApiDocument,
  rawSchema: unknown,
  base: Record<string, unknown>,
  prefix = '',
): Breakage[] {
  const schema = flatten(document, rawSchema)
  const out: Breakage[] = []
  const path = (name: string) => (prefix ? `${prefix}.${name}` : name)
  for (const name of schema.required ?? []) {
    if (!(name in base)) continue
    const { [name]: _removed, ...rest } = base
    out.push({ description: `${path(name)} missing`, body: rest, param: path(name), codes: ['required'] })
  }
  if (schema.additionalProperties === false)
    out.push({
      description: `unknown field ${path('contract_unknown_field')}`,
      body: { ...base, contract_unknown_field: 'x' },
      param: path('contract_unknown_field'),
      codes: ['unknown_field'],
    })
  for (const [name, raw] of Object.entries(schema.properties ?? {})) {
    const property = flatten(document, raw)
    for (const breakage of valueBreakages(document, property))
      out.push({
        description: `${path(name)} ${breakage.what}`,
        body: { ...base, [name]: breakage.value },
        param: path(name) + (breakage.suffix ?? ''),
        codes: breakage.codes,
      })
    // A map (`metadata`, `credentials`): one entry of its own whose value breaks the values' schema.
    const values = property.additionalProperties
    if (values && typeof values === 'object' && !property.properties) {
      const current = base[name]
      const entries = current && typeof current === 'object' ? (current as Record<string, unknown>) : {}
      for (const breakage of valueBreakages(document, flatten(document, values)))
        out.push({
          description: `${path(name)}.contract_key ${breakage.what}`,
          body: { ...base, [name]: { ...entries, contract_key: breakage.value } },
          param: `${path(name)}.contract_key${breakage.suffix ?? ''}`,
          codes: breakage.codes,
        })
    }
    if (property.properties && !prefix) {
      const nestedBase =
        (base[name] as Record<string, unknown> | undefined) ?? minimalObject(document, property)
      for (const nested of bodyBreakages(document, property, nestedBase, path(name)))
        out.push({ ...nested, body: { ...base, [name]: nested.body } })
    }
  }
  return out
}

/** A small valid object for a nested schema: its required properties (or its first one), from enums and bounds. */
function minimalObject(document: OpenApiDocument, schema: Schema): Record<string, unknown> {
  const names = schema.required?.length ? schema.required : Object.keys(schema.properties ?? {}).slice(0, 1)
  const out: Record<string, unknown> = {}
  for (const name of names) {
    const property = flatten(document, schema.properties?.[name] ?? {})
    const types = typesOf(document, property)
    if (property.enum?.[0] !== undefined) out[name] = property.enum[0]
    else if (types.includes('number') || types.includes('integer'))
      out[name] = typeof property.minimum === 'number' ? property.minimum : 1
    else out[name] = 'contract'
  }
  return out
}

/**
 * A number in a query string must be written as JSON writes it (the contract, "Numbers in query parameters"):
 * `+5` is refused by a target that checks the form, and by any that checks the type, so it stands for both.
 */
const NOT_JSON_NUMBER: ValueBreakage = {
  value: '+5',
  what: 'not written as JSON writes numbers (+5)',
  codes: [],
}

/** Values that break a query parameter's schema, one rule each. */
export function parameterBreakages(
  document: OpenApiDocument,
  schema: unknown,
): { value: string; what: string }[] {
  const flat = flatten(document, schema)
  const isString = typesOf(document, flat).includes('string')
  const pattern = typeof flat.pattern === 'string' ? new RegExp(flat.pattern, 'u') : undefined
  return valueBreakages(document, flat)
    .filter((b) => b.value !== null && typeof b.value !== 'object')
    .filter((b) => !(STRING_FORMS as readonly string[]).includes(b.what))
    .filter((b) => !(isString && b.what === 'of the wrong type'))
    .map((b) => (b.what === 'of the wrong type' && !isString ? NOT_JSON_NUMBER : b))
    .filter((b) => !(pattern && LENGTH.has(b.what) && b.value !== '' && !pattern.test(String(b.value))))
    .map((b) => ({ value: String(b.value), what: b.what }))
    .filter((b, i, all) => all.findIndex((o) => o.value === b.value) === i)
}

/**
 * Length breakages of a string that has a pattern: when the too-short or too-long value breaks the pattern
 * as well, it finds nothing the pattern's own breakage does not (a target that checks the pattern refuses
 * both; one that checks only the length lets the pattern's value through), so it is not sent. But for the empty
 * value: a server (or a framework before it) that reads an empty header or parameter as absent lets it through
 * whatever the pattern says.
 */
const LENGTH = new Set(['too short', 'too long'])

import type { OpenApiDocument } from '../contract/load-contract.ts'

/** A JSON Schema object of the contract, as the explorer reads it. */
export type Schema = Record<string, unknown> & {
  $ref?: string
  type?: string | string[]
  enum?: unknown[]
  const?: unknown
  format?: string
  pattern?: string
  description?: string
  properties?: Record<string, unknown>
  required?: string[]
  additionalProperties?: unknown
  items?: unknown
  allOf?: unknown[]
  anyOf?: unknown[]
  oneOf?: unknown[]
  uniqueItems?: boolean
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  minItems?: number
  maxItems?: number
  minProperties?: number
  maxProperties?: number
}

/** A schema with where it lives in the contract (`#/components/schemas/Agent/properties/name`). */
export interface SchemaNode {
  schema: Schema
  /** Where the schema is defined (a field, or the object component a `$ref` led to). */
  pointer: string
  /** The field that holds the value, before any `$ref` was followed (the same as `pointer` when none was). */
  place: string
}

const MAX_HOPS = 16

/**
 * Resolves `$ref`s (the pointer follows those to object components: a field is named by the component that
 * defines it, `#/components/schemas/Agent/properties/updated_at`) and
 * merges `allOf` branches into one schema, the node's own keywords winning (`description`, `default`).
 */
export function resolveNode(document: OpenApiDocument, value: unknown, pointer: string): SchemaNode {
  let schema = (value ?? {}) as Schema
  let at = pointer
  const place = pointer
  for (let hops = 0; typeof schema.$ref === 'string' && hops < MAX_HOPS; hops++) {
    const ref = schema.$ref
    schema = lookup(document, ref)
    // An object component (`Agent`) names its fields; a leaf (`Timestamp`) is named by the field that uses it.
    if (schema.properties) at = ref
  }
  if (Array.isArray(schema.allOf)) {
    const { allOf, ...own } = schema
    let merged: Schema = {}
    let mergedAt = at
    for (const [index, branch] of allOf.entries()) {
      const node = resolveNode(document, branch, at)
      if (index === 0) mergedAt = node.pointer
      merged = mergeSchemas(merged, node.schema)
    }
    // A wrapper with keywords of its own (a property's description) is named by its own place.
    return {
      schema: mergeSchemas(merged, own as Schema),
      pointer: Object.keys(own).length > 0 ? at : mergedAt,
      place,
    }
  }
  return { schema, pointer: at, place }
}

/** Merges two schemas that both apply: a property both define must satisfy both (kept as an `allOf`). */
function mergeSchemas(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a, ...b }
  if (a.properties && b.properties) {
    const properties: Record<string, unknown> = { ...a.properties }
    for (const [name, schema] of Object.entries(b.properties))
      properties[name] = name in properties ? { allOf: [properties[name], schema] } : schema
    out.properties = properties
  }
  if (a.required || b.required) out.required = [...new Set([...(a.required ?? []), ...(b.required ?? [])])]
  return out
}

/** The value at a local reference (`#/components/schemas/Agent`). */
export function lookup(document: OpenApiDocument, ref: string): Schema {
  if (!ref.startsWith('#/')) throw new Error(`Only local $refs are supported, got '${ref}'.`)
  const found = ref
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document)
  if (found === undefined) throw new Error(`Unresolved $ref '${ref}'.`)
  return found as Schema
}

/** The JSON types a schema allows (`type`, or those of its `anyOf`/`oneOf` branches and `enum`). */
export function typesOf(document: OpenApiDocument, node: SchemaNode): string[] {
  const { schema } = node
  if (schema.type) return Array.isArray(schema.type) ? schema.type : [schema.type]
  const branches = schema.anyOf ?? schema.oneOf
  if (branches)
    return [
      ...new Set(
        branches.flatMap((b, i) => typesOf(document, resolveNode(document, b, `${node.pointer}/anyOf/${i}`))),
      ),
    ]
  if (schema.enum) return [...new Set(schema.enum.map((v) => (v === null ? 'null' : typeof v)))]
  if ('const' in schema) return [schema.const === null ? 'null' : typeof schema.const]
  return []
}

/** The non-null branch of a nullable `anyOf` (`[X, {type: null}]`), or undefined. */
export function nonNullBranch(document: OpenApiDocument, node: SchemaNode): SchemaNode | undefined {
  const branches = node.schema.anyOf ?? node.schema.oneOf
  if (!branches) return undefined
  const resolved = branches.map((b, i) => resolveNode(document, b, `${node.pointer}/anyOf/${i}`))
  const others = resolved.filter((b) => !(b.schema.type === 'null'))
  return others.length === 1 ? others[0] : undefined
}

/**
 * The prefix of the IDs a string schema describes (`agt` for `^agt_[A-Za-z0-9]+$`), `*` for any prefixed ID
 * (`^[a-z]+_[A-Za-z0-9]+$`, a cursor), several for `^(agt|call|mem)_...`; undefined for other strings.
 */
export function idPrefixes(schema: Schema): string[] | undefined {
  if (typeof schema.pattern !== 'string') return undefined
  const one = /^\^([a-z]+)_\[A-Za-z0-9\]\+\$$/.exec(schema.pattern)
  if (one?.[1]) return [one[1]]
  const many = /^\^\(([a-z|]+)\)_\[A-Za-z0-9\]\+\$$/.exec(schema.pattern)
  if (many?.[1]) return many[1].split('|')
  if (schema.pattern === '^[a-z]+_[A-Za-z0-9]+$') return ['*']
  return undefined
}

/** The first sentence of a description, on one line. */
export function firstSentence(text: unknown): string {
  if (typeof text !== 'string') return ''
  const flat = text.replace(/\s+/g, ' ').trim()
  const end = flat.search(/\.(\s|$)/)
  return end < 0 ? flat : flat.slice(0, end + 1)
}

/**
 * Write-only values are searched for in answers when at least this long and made of at least this many distinct
 * characters: a short or repetitive value (`!!!!!!!!`, which generators favour) would be found by chance.
 */
const SHORTEST_SEARCHED = 8
const FEWEST_CHARACTERS = 5

/**
 * The strings a request body sends in its `writeOnly` fields (credentials: "never returned"), those long enough
 * to be searched for in every answer after it.
 */
export function writeOnlyValues(document: OpenApiDocument, schema: unknown, value: unknown): string[] {
  const out: string[] = []
  const leaves = (v: unknown): void => {
    if (typeof v === 'string' && v.length >= SHORTEST_SEARCHED && new Set(v).size >= FEWEST_CHARACTERS)
      out.push(v)
    else if (v && typeof v === 'object') for (const member of Object.values(v)) leaves(member)
  }
  const walk = (node: unknown, v: unknown, depth: number): void => {
    if (depth > 8 || v === null || typeof v !== 'object') return
    const { schema: resolved } = resolveNode(document, node, '#')
    if (resolved.writeOnly === true) {
      leaves(v)
      return
    }
    const properties = (resolved.properties ?? {}) as Record<string, unknown>
    for (const [name, member] of Object.entries(v as Record<string, unknown>)) {
      const child = properties[name]
      if (child === undefined) continue
      if (resolveNode(document, child, '#').schema.writeOnly === true) leaves(member)
      else walk(child, member, depth + 1)
    }
  }
  walk(schema, value, 0)
  return out
}

import { generateSync, type JsonSchema } from 'json-schema-faker'
import { type OpenApiDocument, resolveRef } from '../contract/document.ts'

/** A schema node as far as the seed reads it (enums and numeric bounds). */
export interface SchemaNode {
  enum?: unknown[]
  minimum?: number
  maximum?: number
  [keyword: string]: unknown
}

/** Values generated from the contract's schemas, and the enums and bounds the contract declares. */
export interface ContractFaker {
  /**
   * A value of `#/components/schemas/<name>` from json-schema-faker (0.6: Mulberry32 seeded by `seed`, `$ref`s
   * resolved in the contract), with every optional property: required fields, enums, bounds and formats all
   * come from the contract. Curated values are laid over it afterwards.
   */
  fake<T = Record<string, unknown>>(name: string, seed: number): T
  /** The schema node at a pointer such as `#/components/schemas/Agent/properties/status`, `$ref`s followed. */
  node(pointer: string): SchemaNode
  /** The non-null enum values at a pointer (e.g. `CallStatus`'s statuses), in the contract's order. */
  enumOf(pointer: string): string[]
}

/** Longest generated string: free text is replaced by curated text anyway. */
const MAX_LENGTH = 48

/**
 * A copy of a schema whose `maxLength`s are at most `MAX_LENGTH` (or the `minLength`). json-schema-faker
 * 0.6 applies its `maxLength` option only after drawing a string as long as the schema allows: up to
 * 20,000 characters for an agent's `system_prompt`, most of a generated agent's time.
 */
function withShortStrings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withShortStrings)
  if (!value || typeof value !== 'object') return value
  const copy: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value)) copy[key] = withShortStrings(child)
  if (typeof copy.maxLength === 'number' && copy.maxLength > MAX_LENGTH)
    copy.maxLength = Math.max(MAX_LENGTH, typeof copy.minLength === 'number' ? copy.minLength : 0)
  return copy
}

/** Generated values kept per document, by schema and seed: at most this many each. */
const MAX_REMEMBERED = 1000
const remembered = new WeakMap<OpenApiDocument, Map<string, unknown>>()

/**
 * Creates the faker for one contract document (a parsed OpenAPI 3.1 object). json-schema-faker is
 * deterministic for a seed, and most of a seeding's time, so each value is generated once per process
 * and handed out as a copy: a fresh platform (a test's) seeds in a fraction of the time.
 */
export function createContractFaker(document: OpenApiDocument): ContractFaker {
  let values = remembered.get(document)
  if (!values) {
    values = new Map()
    remembered.set(document, values)
  }
  const cache = values
  const node = (pointer: string) => resolveRef<SchemaNode>(document, { $ref: pointer })
  const generated = new Map<string, JsonSchema>()
  const refResolver = (ref: string): JsonSchema => {
    let schema = generated.get(ref)
    if (!schema) {
      schema = withShortStrings(resolveRef<JsonSchema>(document, { $ref: ref })) as JsonSchema
      generated.set(ref, schema)
    }
    return schema
  }
  return {
    fake<T>(name: string, seed: number): T {
      const key = `${name}\u0000${seed}`
      let value = cache.get(key)
      if (value === undefined) {
        value = generateSync(refResolver(`#/components/schemas/${name}`), {
          seed,
          refResolver,
          alwaysFakeOptionals: true,
          maxDefaultItems: 3,
          maxLength: MAX_LENGTH,
        })
        if (cache.size < MAX_REMEMBERED) cache.set(key, value)
      }
      return structuredClone(value) as T
    },
    node,
    enumOf(pointer: string): string[] {
      const values = node(pointer).enum
      if (!Array.isArray(values)) throw new Error(`The contract has no enum at ${pointer}`)
      return values.filter((value): value is string => typeof value === 'string')
    },
  }
}

/** `value` moved into the schema node's `[minimum, maximum]`. */
export function clampTo(node: SchemaNode, value: number): number {
  return Math.min(node.maximum ?? value, Math.max(node.minimum ?? value, value))
}

/** `value` if the contract's enum lists it; the seed's curated rules name values the contract must keep. */
export function enumValue<T extends string>(values: readonly string[], value: T): T {
  if (!values.includes(value))
    throw new Error(`The seed expects '${value}' in the contract's enum [${values.join(', ')}]`)
  return value
}

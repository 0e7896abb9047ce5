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

/** Creates the faker for one contract document (a parsed OpenAPI 3.1 object). */
export function createContractFaker(document: OpenApiDocument): ContractFaker {
  const refResolver = (ref: string) => resolveRef<JsonSchema>(document, { $ref: ref })
  const node = (pointer: string) => resolveRef<SchemaNode>(document, { $ref: pointer })
  return {
    fake<T>(name: string, seed: number): T {
      const schema = node(`#/components/schemas/${name}`) as JsonSchema
      return generateSync(schema, {
        seed,
        refResolver,
        alwaysFakeOptionals: true,
        maxDefaultItems: 3,
        // Free text is replaced by curated text anyway; short strings keep generation fast.
        maxLength: 48,
      }) as T
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

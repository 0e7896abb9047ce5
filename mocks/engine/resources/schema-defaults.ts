import { type OpenApiDocument, resolveRef } from '../contract/document.ts'

type Schema = { properties?: Record<string, Schema | { $ref: string }>; default?: unknown; $ref?: string }

/**
 * The `default`s the contract declares for a request body's top-level properties, so that
 * defaults are read from the contract rather than written again in code.
 */
export function defaultsOf(document: OpenApiDocument, schemaName: string): Record<string, unknown> {
  const schema = resolveRef<Schema>(document, { $ref: `#/components/schemas/${schemaName}` })
  const defaults: Record<string, unknown> = {}
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const resolved = resolveRef<Schema>(document, property)
    if (resolved.default !== undefined) defaults[name] = structuredClone(resolved.default)
  }
  return defaults
}

import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'

/** A parsed OpenAPI 3.1 document (only the parts the suite reads are typed). */
export interface OpenApiDocument {
  openapi: string
  paths: Record<string, Record<string, unknown>>
  components?: Record<string, Record<string, unknown>>
  [key: string]: unknown
}

/** Where the v1 contract lives in this package: `openapi/v1.yaml` (found from the source or the build). */
export const DEFAULT_CONTRACT_PATH = ['../../openapi/v1.yaml', '../../../openapi/v1.yaml']
  .map((relative) => fileURLToPath(new URL(relative, import.meta.url)))
  .find((path) => existsSync(path)) as string

const cache = new Map<string, OpenApiDocument>()

/**
 * Reads and parses the contract (YAML or JSON). The suite compiles every validator from this document,
 * so a change to `openapi/v1.yaml` changes what the suite expects without any copy to update.
 */
export function loadContractDocument(path: string = DEFAULT_CONTRACT_PATH): OpenApiDocument {
  const cached = cache.get(path)
  if (cached) return cached
  const value: unknown = parse(readFileSync(path, 'utf8'))
  if (!value || typeof value !== 'object' || !('paths' in value))
    throw new Error(`${path} is not an OpenAPI document (no paths).`)
  const document = value as OpenApiDocument
  cache.set(path, document)
  return document
}

/** Follows local `$ref`s (`#/components/...`) until a non-reference value is reached. */
export function resolveRef<T = Record<string, unknown>>(document: OpenApiDocument, value: unknown): T {
  let current = value
  for (let hops = 0; hops < 16; hops++) {
    if (!current || typeof current !== 'object' || !('$ref' in current)) return current as T
    const ref = String((current as { $ref: unknown }).$ref)
    if (!ref.startsWith('#/')) throw new Error(`Only local $refs are supported, got '${ref}'.`)
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document)
    if (current === undefined) throw new Error(`Unresolved $ref '${ref}'.`)
  }
  throw new Error('Too many nested $refs.')
}

import type {
  OpenApiDocument,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ReferenceObject,
} from '../../../openapi/generated/openapi-document.ts'

/** The document shape is generated with the contract (`openapi/generated/openapi-document.ts`). */
export type { OpenApiDocument, OperationObject, ParameterObject }
export type PathItem = PathItemObject
export type ParameterOrRef = ParameterObject | ReferenceObject

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace'

export const HTTP_METHODS: readonly HttpMethod[] = [
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
]

/** Follows a local `$ref` (`#/components/...`) inside the document. */
export function resolveRef<T>(document: OpenApiDocument, value: T | { $ref: string }): T {
  let current: unknown = value
  for (let hops = 0; hops < 10; hops++) {
    if (!current || typeof current !== 'object' || !('$ref' in current)) return current as T
    const ref = (current as { $ref: string }).$ref
    if (!ref.startsWith('#/')) throw new Error(`Only local $refs are supported, got '${ref}'`)
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document)
    if (current === undefined) throw new Error(`Unresolved $ref '${ref}'`)
  }
  throw new Error('Too many nested $refs')
}

/**
 * How a contract validator treats the data: `query` coerces strings and fills defaults, `body` fills the
 * contract's defaults into the (parsed, owned) request body, `check` only checks (responses).
 */
export type Mode = 'query' | 'body' | 'check'

/** The JSON Schema of a media type, resolving `$ref`d request bodies and responses. */
export function jsonSchemaOf(
  document: OpenApiDocument,
  container: { $ref?: string; content?: Record<string, { schema?: unknown }> } | undefined,
): unknown {
  if (!container) return undefined
  const resolved = resolveRef<{ content?: Record<string, { schema?: unknown }> }>(
    document,
    container as { $ref: string },
  )
  return resolved.content?.['application/json']?.schema
}

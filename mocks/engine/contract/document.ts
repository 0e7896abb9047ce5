/** The parts of an OpenAPI 3.1 document the engine reads. */
export interface OpenApiDocument {
  openapi: string
  paths: Record<string, PathItem>
  components?: {
    schemas?: Record<string, unknown>
    parameters?: Record<string, unknown>
    [key: string]: unknown
  }
  [key: string]: unknown
}

export type PathItem = Partial<Record<HttpMethod, OperationObject>> & { parameters?: ParameterOrRef[] }

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

export interface OperationObject {
  operationId?: string
  parameters?: ParameterOrRef[]
  requestBody?: { $ref?: string; required?: boolean; content?: Record<string, { schema?: unknown }> }
  responses?: Record<
    string,
    { $ref?: string; content?: Record<string, { schema?: unknown }>; headers?: unknown }
  >
  'x-required-permission'?: string[]
  [key: string]: unknown
}

export interface ParameterObject {
  name: string
  in: 'query' | 'header' | 'path' | 'cookie'
  required?: boolean
  schema?: Record<string, unknown>
}

export type ParameterOrRef = ParameterObject | { $ref: string }

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

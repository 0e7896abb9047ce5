import { type OpenApiDocument, resolveRef } from './load-contract.ts'

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete' | 'put'

/** A parameter of an operation, resolved from the contract. */
export interface ContractParameter {
  name: string
  in: 'query' | 'header' | 'path' | 'cookie'
  required: boolean
  schema: Record<string, unknown>
}

/** A documented response of an operation: its schema and headers, resolved. */
export interface ContractResponse {
  status: string
  /** `application/json` schema, when the response has a body. */
  schema?: unknown
  contentTypes: string[]
  headers: Record<string, { required: boolean; schema: Record<string, unknown> }>
}

/** One operation of the contract, with everything the checks read. */
export interface ContractOperation {
  operationId: string
  method: HttpMethod
  /** Path template relative to the base URL, e.g. `/agents/{agent_id}`. */
  path: string
  tag: string
  /** `x-required-permission`: every listed scope is needed, in this order. */
  permissions: string[]
  parameters: ContractParameter[]
  requestBody?: { required: boolean; schema: Record<string, unknown>; examples: unknown[] }
  responses: Map<string, ContractResponse>
}

const METHODS: HttpMethod[] = ['get', 'post', 'patch', 'delete', 'put']

/** The operations of the contract, in document order. */
export function listOperations(document: OpenApiDocument): ContractOperation[] {
  const operations: ContractOperation[] = []
  for (const [path, rawItem] of Object.entries(document.paths)) {
    const item = rawItem as Record<string, unknown> & { parameters?: unknown[] }
    for (const method of METHODS) {
      const raw = item[method] as Record<string, unknown> | undefined
      if (!raw) continue
      const parameters = [...(item.parameters ?? []), ...((raw.parameters as unknown[]) ?? [])].map((p) => {
        const resolved = resolveRef<Record<string, unknown>>(document, p)
        return {
          name: String(resolved.name),
          in: resolved.in as ContractParameter['in'],
          required: resolved.required === true,
          schema: resolveRef<Record<string, unknown>>(document, resolved.schema ?? {}),
        }
      })
      operations.push({
        operationId: String(raw.operationId),
        method,
        path,
        tag: String((raw.tags as string[] | undefined)?.[0] ?? ''),
        permissions: (raw['x-required-permission'] as string[] | undefined) ?? [],
        parameters,
        requestBody: requestBodyOf(document, raw.requestBody),
        responses: responsesOf(document, raw.responses as Record<string, unknown> | undefined),
      })
    }
  }
  return operations
}

/** A request body's JSON schema and its documented examples (their values), resolved. */
export function requestBodyOf(document: OpenApiDocument, raw: unknown): ContractOperation['requestBody'] {
  if (!raw) return undefined
  const body = resolveRef<{ required?: boolean; content?: Record<string, Record<string, unknown>> }>(
    document,
    raw,
  )
  const media = body.content?.['application/json']
  if (!media) return undefined
  const examples = Object.values((media.examples as Record<string, { value?: unknown }>) ?? {})
    .map((example) => resolveRef<{ value?: unknown }>(document, example).value)
    .filter((value) => value !== undefined)
  return {
    required: body.required === true,
    schema: (media.schema ?? {}) as Record<string, unknown>,
    examples,
  }
}

function responsesOf(
  document: OpenApiDocument,
  raw: Record<string, unknown> | undefined,
): Map<string, ContractResponse> {
  const responses = new Map<string, ContractResponse>()
  for (const [status, value] of Object.entries(raw ?? {})) {
    const response = resolveRef<{
      content?: Record<string, { schema?: unknown }>
      headers?: Record<string, unknown>
    }>(document, value)
    const headers: ContractResponse['headers'] = {}
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const resolved = resolveRef<{ required?: boolean; schema?: unknown }>(document, header)
      headers[name.toLowerCase()] = {
        required: resolved.required === true,
        schema: resolveRef<Record<string, unknown>>(document, resolved.schema ?? {}),
      }
    }
    responses.set(status, {
      status,
      schema: response.content?.['application/json']?.schema,
      contentTypes: Object.keys(response.content ?? {}),
      headers,
    })
  }
  return responses
}

/** Fills a path template: `/agents/{agent_id}` with `{ agent_id: 'agt_1' }` gives `/agents/agt_1`. */
export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(params[name] ?? `{${name}}`),
  )
}

/** The operation a method and concrete path match, or the path's operations when only the path matches. */
export function matchOperation(
  operations: readonly ContractOperation[],
  method: string,
  path: string,
): { operation?: ContractOperation; pathOperations: ContractOperation[] } {
  const pathOperations = operations.filter((op) => templateRegExp(op.path).test(path))
  const operation = pathOperations.find((op) => op.method === method.toLowerCase())
  return { operation, pathOperations }
}

const regexps = new Map<string, RegExp>()

function templateRegExp(template: string): RegExp {
  let regexp = regexps.get(template)
  if (!regexp) {
    const source = template
      .split(/\{[^}]+\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]+')
    regexp = new RegExp(`^${source}/?$`)
    regexps.set(template, regexp)
  }
  return regexp
}

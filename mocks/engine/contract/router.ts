import type { Scope } from '../permissions.ts'
import { upperCaseMethod } from '../upper-case-method.ts'
import {
  HTTP_METHODS,
  type HttpMethod,
  type OpenApiDocument,
  type OperationObject,
  type ParameterObject,
  resolveRef,
} from './document.ts'

/** An operation of the contract, with what the engine needs to route and check it. */
export interface Operation {
  operationId: string
  method: HttpMethod
  path: string
  permissions: Scope[]
  parameters: ParameterObject[]
  hasBody: boolean
  /** The request body is required (`requestBody.required`, its `$ref` followed). */
  bodyRequired: boolean
  object: OperationObject
}

export type RouteMatch =
  | { kind: 'operation'; operation: Operation; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' }

interface Route {
  pattern: RegExp
  names: string[]
  operations: Map<string, Operation>
  allow: string[]
  literal: boolean
}

/** Most request paths whose route is kept; past it the cache starts again empty. */
const MAX_ROUTED_PATHS = 512

/** Routes requests to the contract's operations; 404 and 405 (with `Allow`) come from the contract too. */
export function createRouter(document: OpenApiDocument) {
  const routes: Route[] = []
  const byId = new Map<string, Operation>()
  for (const [path, item] of Object.entries(document.paths)) {
    const names: string[] = []
    const source = path
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      .replace(/\\\{([^}]+)\\\}/g, (_, name: string) => {
        names.push(name)
        return '([^/]+)'
      })
    const operations = new Map<string, Operation>()
    for (const method of HTTP_METHODS) {
      const object = item[method]
      if (!object) continue
      const parameters = [...(item.parameters ?? []), ...(object.parameters ?? [])].map((p) =>
        resolveRef<ParameterObject>(document, p),
      )
      const operation: Operation = {
        operationId: object.operationId ?? `${method} ${path}`,
        method,
        path,
        permissions: (object['x-required-permission'] ?? []) as Scope[],
        parameters,
        hasBody: object.requestBody !== undefined,
        bodyRequired:
          object.requestBody !== undefined &&
          resolveRef<{ required?: boolean }>(document, object.requestBody).required === true,
        object,
      }
      operations.set(method.toUpperCase(), operation)
      byId.set(operation.operationId, operation)
    }
    // The documented methods (the contract's `Allow`), and HEAD wherever GET is (RFC 9110: HEAD is
    // answered like GET, without a body); CORS preflights are answered apart.
    const allow = [...operations.keys()].flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]))
    routes.push({
      pattern: new RegExp(`^${source}/?$`),
      names,
      operations,
      allow,
      literal: names.length === 0,
    })
  }
  // Literal paths win over templated ones (`/agents/search` before `/agents/{agent_id}`).
  routes.sort((a, b) => Number(b.literal) - Number(a.literal))

  /**
   * The first route whose pattern matches a path (null: none), by path: a client repeats the same few paths,
   * and trying every route's pattern in turn was a good part of routing.
   */
  let routeOf = new Map<string, Route | null>()

  function firstRoute(path: string): Route | null {
    let route = routeOf.get(path)
    if (route === undefined) {
      route = routes.find((candidate) => candidate.pattern.test(path)) ?? null
      if (routeOf.size >= MAX_ROUTED_PATHS) routeOf = new Map()
      routeOf.set(path, route)
    }
    return route
  }

  return {
    match(method: string, path: string): RouteMatch {
      const route = firstRoute(path)
      if (route) {
        const upper = upperCaseMethod(method)
        const operation =
          route.operations.get(upper) ?? (upper === 'HEAD' ? route.operations.get('GET') : undefined)
        if (!operation) return { kind: 'method-not-allowed', allow: route.allow }
        const params: Record<string, string> = {}
        if (route.names.length > 0) {
          const found = route.pattern.exec(path) as RegExpExecArray
          route.names.forEach((name, i) => {
            params[name] = safeDecode(found[i + 1] ?? '')
          })
        }
        return { kind: 'operation', operation, params }
      }
      return { kind: 'not-found' }
    },
    operation: (operationId: string) => byId.get(operationId),
    operations: () => [...byId.values()],
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

export type Router = ReturnType<typeof createRouter>

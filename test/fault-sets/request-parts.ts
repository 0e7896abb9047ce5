/**
 * Reading and rewriting engine requests, shared by the held-out fault sets (test/fault-sets/held-out-*.ts): the
 * parts of a request a fault looks at, and the one rewrite several faults make.
 */
import type { EngineRequest } from '../../mocks/engine/types.ts'

export type Json = Record<string, unknown>
export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export const urlOf = (request: EngineRequest) => new URL(request.url, 'http://engine.invalid')
export const pathOf = (request: EngineRequest) => urlOf(request).pathname
export const queryOf = (request: EngineRequest) => urlOf(request).searchParams

/** The request's bearer token, or undefined. */
export function tokenOf(request: EngineRequest): string | undefined {
  const match = /^bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')
  return match?.[1]
}

/** A JSON value written with sorted keys: two bodies are the same request when these are equal. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`
  return JSON.stringify(value) ?? 'undefined'
}

/** The request sent with another key. */
export const withToken = (request: EngineRequest, token: string): EngineRequest => ({
  ...request,
  headers: { ...request.headers, authorization: `Bearer ${token}` },
})

import type { EngineRequest, EngineResponse } from '../../../mocks/engine/types.ts'
import type { MockPlatform } from '../../../mocks/platform.ts'

export type Json = Record<string, unknown>

export const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v)

/** A key as the control plane made it (what a faulty implementation may know of its keys). */
export interface KnownKey {
  id: string
  value: string
  account: string
  type: string
  permissions: string[]
  expiresAt?: number
  revokedAt?: number
}

/** An object the implementation answered with, and the account it belongs to. */
export interface KnownObject {
  account: string
  object: Json
}

/** The request's path (without `/v1`) and query. */
export function partsOf(request: EngineRequest): { path: string; query: URLSearchParams } {
  const url = new URL(request.url, 'http://fault.test')
  return { path: url.pathname.replace(/^\/v1/, ''), query: url.searchParams }
}

/** The answer's JSON body (a copy the fault may change). */
export const bodyOf = (response: EngineResponse) => response.body as Json

/**
 * What a faulty implementation built around the correct engine can know: the keys made through the control
 * plane (value, account, permissions, expiry, revocation), every object it answered with, the objects it
 * deleted, and the platform's clock. It learns from the correct answers (before a fault changes them).
 */
export class World {
  readonly keys = new Map<string, KnownKey>()
  private readonly keyIds = new Map<string, string>()
  readonly objects = new Map<string, KnownObject>()
  readonly deleted = new Map<string, KnownObject>()

  constructor(readonly platform: MockPlatform) {}

  now(): number {
    return this.platform.clock.now()
  }

  /** The key a request carries (its Bearer token), when the control plane made it. */
  keyOf(request: EngineRequest): KnownKey | undefined {
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1]
    return token ? this.keys.get(token) : undefined
  }

  accountOf(request: EngineRequest): string | undefined {
    return this.keyOf(request)?.account
  }

  /** Another active secret key with every scope, of the same account (what a shortcut would use instead). */
  fullKeyOf(account: string): KnownKey | undefined {
    return [...this.keys.values()].find(
      (k) =>
        k.account === account &&
        k.type === 'secret' &&
        k.revokedAt === undefined &&
        k.expiresAt === undefined &&
        k.permissions.length === 8,
    )
  }

  /** Learns from a request and the correct answer to it. */
  observe(request: EngineRequest, response: EngineResponse): void {
    const { path } = partsOf(request)
    const body = response.body
    const control = /^\/_mock\/accounts\/([^/]+)\/keys$/.exec(
      new URL(request.url, 'http://fault.test').pathname,
    )
    if (control && request.method === 'POST' && response.status === 201 && isObject(body)) {
      const input = JSON.parse(request.body ?? '{}') as { restrictions?: { expires_at?: string } }
      const key: KnownKey = {
        id: String(body.id),
        value: String(body.value),
        account: String(control[1]),
        type: String(body.type),
        permissions: (body.permissions as string[] | undefined) ?? [],
      }
      if (input.restrictions?.expires_at) key.expiresAt = Date.parse(input.restrictions.expires_at)
      this.keys.set(key.value, key)
      this.keyIds.set(key.id, key.value)
      return
    }
    const revoke = /^\/_mock\/keys\/([^/]+)\/revoke$/.exec(new URL(request.url, 'http://fault.test').pathname)
    if (revoke && response.status === 200) {
      const key = this.keys.get(this.keyIds.get(String(revoke[1])) ?? '')
      if (key && key.revokedAt === undefined) key.revokedAt = this.now()
      return
    }
    const account = this.accountOf(request)
    if (!account || response.status >= 300 || !request.url.startsWith('/v1')) return
    if (request.method === 'DELETE' && isObject(body) && typeof body.id === 'string') {
      const known = this.objects.get(body.id)
      if (known) this.deleted.set(body.id, known)
      this.objects.delete(body.id)
      return
    }
    if (response.headers['idempotent-replayed'] !== undefined) return
    const items = isObject(body) && Array.isArray(body.data) ? body.data : [body]
    for (const item of items)
      if (
        isObject(item) &&
        typeof item.id === 'string' &&
        /^[a-z]+_/.test(item.id) &&
        !this.deleted.has(item.id)
      ) {
        const before = this.objects.get(item.id)?.object ?? {}
        this.objects.set(item.id, { account, object: { ...before, ...item } })
      }
    void path
  }
}

/** A 404 `resource_not_found` as the implementation would write it, with the headers of `base`. */
export function notFound(base: EngineResponse, param: string): EngineResponse {
  return {
    status: 404,
    headers: { ...base.headers },
    body: {
      error: {
        type: 'not_found_error',
        code: 'resource_not_found',
        message: 'No such object.',
        param,
        request_id: base.headers['request-id'],
      },
    },
  }
}

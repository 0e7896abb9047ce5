/**
 * What the held-out fault sets (test/fault-sets/held-out-*.ts) keep of the traffic they see, where several sets keep
 * it alike: the objects answers showed, per account, what a key's record says, and the platform clock as the answers show it.
 */
import type { EngineRequest, EngineResponse } from '../../mocks/engine/types.ts'
import { isObject, isV1, itemId, type Json, nowSecondsOf, objectsOf, pathOf } from './request-parts.ts'

/**
 * The maps and sets a set's faults keep of the traffic, made through `map`, `set` and `keep`, emptied together by
 * `empty` when the platform starts again (`POST /_mock/reset`). A set's own book extends it.
 */
export class KeptBook {
  private readonly kept: { clear(): void }[] = []

  map<K, V>(): Map<K, V> {
    return this.keep(new Map<K, V>())
  }

  set<T>(): Set<T> {
    return this.keep(new Set<T>())
  }

  /** Keeps `clearable` with the rest: a reset empties it too. */
  keep<T extends { clear(): void }>(clearable: T): T {
    this.kept.push(clearable)
    return clearable
  }

  /** Empties everything kept. */
  protected empty(): void {
    for (const kept of this.kept) kept.clear()
  }
}

/** The objects of one type as the answers last showed them, per account; removals forget them. */
export class Seen {
  private readonly objects = new Map<string, Json>()

  constructor(
    private readonly type: string,
    private readonly collection: string,
  ) {}

  /** The object `id` of `account` as last seen, or undefined. */
  get(account: string, id: unknown): Json | undefined {
    return this.objects.get(`${account} ${String(id)}`)
  }

  /** Every object of `account` seen and not removed since. */
  all(account: string): Json[] {
    return [...this.objects.entries()]
      .filter(([key]) => key.startsWith(`${account} `))
      .map(([, value]) => value)
  }

  clear(): void {
    this.objects.clear()
  }

  /** Learns the objects of an answer (merged over what was seen, so that a partial view keeps the rest). */
  learn(response: EngineResponse, account: string): void {
    for (const object of objectsOf(response, this.type)) {
      const key = `${account} ${String(object.id)}`
      this.objects.set(key, { ...this.objects.get(key), ...structuredClone(object) })
    }
  }

  /** Learns from a v1 answer: its objects, and a removal. */
  observe(request: EngineRequest, response: EngineResponse, account: string): void {
    if (!isV1(request)) return
    this.learn(response, account)
    const removed = itemId(request, 'DELETE', this.collection)
    if (removed !== undefined && response.status === 200) this.objects.delete(`${account} ${removed}`)
  }
}

/** What a fault knows of a key: its ID, account, kind, permissions and restrictions, and whether it was revoked. */
export interface KeyInfo {
  id: string
  account: string
  type: string
  permissions: string[]
  restrictions: { allowed_ips: string[]; allowed_origins: string[]; expires_at: string | null }
  revoked: boolean
}

/** The mock clock as the answers show it: the control plane's clock answers, and every rate-limited answer. */
export class ClockWatch {
  private at: number | undefined

  observe(request: EngineRequest, response: EngineResponse): void {
    const path = pathOf(request)
    if (path === '/_mock/reset') {
      this.at = undefined
      return
    }
    if (
      (path === '/_mock/clock' || path === '/_mock/clock/advance') &&
      response.status === 200 &&
      isObject(response.body) &&
      typeof response.body.now === 'string'
    ) {
      this.at = Date.parse(response.body.now)
      return
    }
    const seconds = nowSecondsOf(response)
    if (seconds !== undefined && (this.at === undefined || seconds * 1000 > this.at)) this.at = seconds * 1000
  }

  /** The platform clock in milliseconds, as last seen (undefined until an answer told it). */
  now(): number | undefined {
    return this.at
  }
}

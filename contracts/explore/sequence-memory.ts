import type { IdMap } from './id-map.ts'
import { isObject } from './is-object.ts'
import type { SideAnswer } from './sides.ts'
import { type KeyRole, OTHER_ACCOUNT_ROLES } from './step-types.ts'

/** A target ID and the model's for the same object. */
export interface IdPair {
  target: string
  model: string
}

/** Where an object's ID is drawn from: the account's live objects, its deleted ones, the other account's. */
export type Pool = 'live' | 'deleted' | 'other'

const ID_SHAPE = /^[a-z]+_[A-Za-z0-9]+$/
const INSTANT_SHAPE = /^\d{4}-\d\d-\d\dT/
/** Strings kept per field for reuse (the last ones). */
const SEEN_KEPT = 12
/** Values kept per field of one object (the last ones). */
const HISTORY_KEPT = 6
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/**
 * What a sequence has learnt so far, for the steps that follow to choose from: the objects on each side (live,
 * deleted, of the other account) by ID prefix, the values sent for each parameter, the strings seen in each
 * field (an e-mail address to invite again), and the instants and integers the answers showed (bounds of
 * filters and ranges).
 */
export class SequenceMemory {
  private readonly pools: Record<Pool, Map<string, IdPair[]>> = {
    live: new Map(),
    deleted: new Map(),
    other: new Map(),
  }
  private readonly strings = new Map<string, string[]>()
  private readonly sentParams = new Map<string, IdPair[]>()
  /** Instants the answers showed, with the field that showed them. */
  private readonly stamps: { field: string; second: number }[] = []
  /** Integers the answers showed, per field (the last few). */
  private readonly integers = new Map<string, number[]>()
  /**
   * The values each object's fields have had, by the object's model ID: from the bodies accepted for it and the
   * answers that showed it, each value once, the latest last.
   */
  private readonly histories = new Map<string, Map<string, unknown[]>>()

  /** The objects of one pool with one ID prefix (`agt`), oldest first; the list itself, to add to. */
  pool(kind: Pool, prefix: string): IdPair[] {
    let list = this.pools[kind].get(prefix)
    if (!list) {
      list = []
      this.pools[kind].set(prefix, list)
    }
    return list
  }

  /** The strings seen in a field, the latest last. */
  seen(field: string): readonly string[] {
    return this.strings.get(field) ?? []
  }

  /** The values sent for a parameter so far. */
  sentFor(name: string): readonly IdPair[] {
    return this.sentParams.get(name) ?? []
  }

  /** The values the fields of the object whose model ID is `id` have had, the latest last. */
  historyOf(id: string): ReadonlyMap<string, readonly unknown[]> {
    return this.histories.get(id) ?? new Map()
  }

  /** Remembers a value sent for a parameter (a later step may send it again). */
  sent(name: string, value: IdPair): void {
    const list = this.sentParams.get(name) ?? []
    if (!list.some((v) => v.target === value.target)) list.push({ target: value.target, model: value.model })
    this.sentParams.set(name, list)
  }

  /** Remembers an instant shown in a field. */
  stamp(field: string, second: number): void {
    this.stamps.push({ field, second })
  }

  /**
   * The instants a bound named `name` is drawn from: those of its field when any were seen (`started_after` on
   * `started_at`: the parameter and the field share their first word), else every one.
   */
  instantsFor(name: string): readonly { second: number }[] {
    const word = name.split('_')[0] as string
    const related = this.stamps.filter((s) => s.field.split('_')[0] === word)
    return related.length > 0 ? related : this.stamps
  }

  /**
   * The integers a bound named `name` is drawn from: those of the fields whose name ends its own
   * (`min_duration_seconds` on `duration_seconds`), none when no such field showed one.
   */
  numbersFor(name: string): readonly number[] {
    const found: number[] = []
    for (const [field, values] of this.integers)
      if (name === field || name.endsWith(`_${field}`)) found.push(...values)
    return found
  }

  /**
   * Learns from an exchange the model accepted (and did not replay): a deleted object moves to the deleted
   * pool (when it was this account's); every object an answer shows joins its pool; every instant and every
   * string of the request's body and of the answer is remembered.
   */
  learn(
    request: { method: string; path: string; body?: string },
    answer: SideAnswer,
    role: KeyRole,
    ids: IdMap,
  ): void {
    const replayed = answer.headers['idempotent-replayed'] !== undefined
    if (answer.status >= 300 || replayed) return

    const kind = OTHER_ACCOUNT_ROLES.has(role) ? 'other' : 'live'
    if (request.method === 'DELETE') {
      const id = isObject(answer.body) && typeof answer.body.id === 'string' ? answer.body.id : undefined
      const targetId = id ? ids.toTarget(id) : undefined
      if (id && targetId) {
        const prefix = id.slice(0, id.indexOf('_'))
        for (const k of ['live', 'other'] as const) {
          const list = this.pool(k, prefix)
          const at = list.findIndex((p) => p.model === id)
          if (at >= 0) list.splice(at, 1)
        }
        if (kind === 'live') this.pool('deleted', prefix).push({ target: targetId, model: id })
      }
      return
    }
    let sent: unknown
    try {
      sent = request.body === undefined ? undefined : JSON.parse(request.body)
    } catch {
      // not JSON: nothing to remember
    }
    const named = decodeURIComponent(request.path.split('?')[0]?.split('/').pop() ?? '')
    if (request.method !== 'POST' && (ids.toTarget(named) || this.histories.has(named)) && isObject(sent))
      this.record(named, sent)
    const objects =
      isObject(answer.body) && Array.isArray(answer.body.data) ? answer.body.data : [answer.body]
    for (const object of objects) {
      if (isObject(object) && typeof object.id === 'string') this.record(object.id, object)
      if (!isObject(object) || typeof object.id !== 'string' || !ID_SHAPE.test(object.id)) continue
      const targetId = ids.toTarget(object.id)
      if (!targetId) continue
      const prefix = object.id.slice(0, object.id.indexOf('_'))
      const list = this.pool(kind, prefix)
      if (!list.some((p) => p.model === object.id)) list.push({ target: targetId, model: object.id })
    }
    this.instants(answer.body)
    if (sent !== undefined) this.remember(sent)
    this.remember(answer.body)
  }

  /** Each field of `fields` as a value the object `id` had, now its latest. */
  private record(id: string, fields: Record<string, unknown>): void {
    let history = this.histories.get(id)
    if (!history) {
      history = new Map()
      this.histories.set(id, history)
    }
    for (const [field, value] of Object.entries(fields)) {
      const values = (history.get(field) ?? []).filter((v) => !sameJson(v, value))
      values.push(value)
      history.set(field, values.slice(-HISTORY_KEPT))
    }
  }

  /** Every instant a value shows (creation, start, end of a call), with the field that shows it. */
  private instants(value: unknown, field = ''): void {
    if (typeof value === 'string' && INSTANT_SHAPE.test(value)) {
      const second = Math.floor(Date.parse(value) / 1000)
      if (!Number.isNaN(second) && !this.stamps.some((s) => s.second === second && s.field === field))
        this.stamp(field, second)
    } else if (Array.isArray(value)) for (const item of value) this.instants(item, field)
    else if (isObject(value)) for (const [name, item] of Object.entries(value)) this.instants(item, name)
  }

  /** Every string of a value in a named field that is neither an ID nor an instant, the last few per field. */
  private remember(value: unknown, field = ''): void {
    if (typeof value === 'number' && Number.isInteger(value) && field) {
      const list = this.integers.get(field) ?? []
      if (!list.includes(value)) list.push(value)
      this.integers.set(field, list.slice(-SEEN_KEPT))
    } else if (typeof value === 'string') {
      if (!field || ID_SHAPE.test(value) || INSTANT_SHAPE.test(value)) return
      const list = this.strings.get(field) ?? []
      if (!list.includes(value)) list.push(value)
      this.strings.set(field, list.slice(-SEEN_KEPT))
    } else if (Array.isArray(value)) for (const item of value) this.remember(item, field)
    else if (isObject(value)) for (const [name, item] of Object.entries(value)) this.remember(item, name)
  }
}

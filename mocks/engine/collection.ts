/** What every listed object has: an id and a creation timestamp (ISO 8601, all in one format). */
export interface Listable {
  id: string
  created_at: string
}

export interface PageQuery<T> {
  limit: number
  starting_after?: string
  ending_before?: string
  /** Restricts the scan to one value of a secondary index (e.g. `agent_id`). */
  index?: { name: string; value: string }
  /** Further filters, applied while scanning from the cursor. */
  filter?: (item: T) => boolean
}

export type PageResult<T> =
  | { ok: true; data: T[]; has_more: boolean }
  | { ok: false; param: 'starting_after' | 'ending_before'; id: string }

/** Called with every change a collection makes to itself: the new item (null when removed) and the old one. */
export type CollectionChange<T> = (id: string, item: T | null, before: T | null) => void

/** Deleted ids remembered as cursors, per collection. */
const MAX_TOMBSTONES = 10_000

const sortKey = (item: Listable) => `${item.created_at}\u0000${item.id}`

/** First position in an oldest-first list whose key is above `key` (or at it, when `inclusive`). */
function firstFrom(items: readonly Listable[], key: string, inclusive: boolean): number {
  let lo = 0
  let hi = items.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const midKey = sortKey(items[mid] as Listable)
    if (midKey < key || (!inclusive && midKey === key)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * A collection listed newest first (by `created_at`, then `id`) with an id map and optional secondary
 * indexes, so that any page at any cursor costs O(log n + page) rather than a scan of the store.
 * Items are kept oldest first, so that adding the newest (every create) is an append, not a shift of
 * the whole list. Deleted ids stay usable as cursors (their position is remembered).
 */
export class Collection<T extends Listable> {
  private readonly byId = new Map<string, T>()
  /** Oldest first. */
  private ordered: T[] = []
  /** `values()`, newest first, until the next change. */
  private newestFirst: T[] | undefined
  private readonly indexes = new Map<string, { field: keyof T; lists: Map<string, T[]> }>()
  private readonly tombstones = new Map<string, string>()

  /**
   * @param indexFields fields with a secondary index (`page({ index })` scans one value's items only)
   * @param onChange told of every change made through `put`, `remove` and `load` (not through `apply`)
   */
  constructor(
    indexFields: (keyof T & string)[],
    private readonly onChange?: CollectionChange<T>,
  ) {
    for (const field of indexFields) this.indexes.set(field, { field, lists: new Map() })
  }

  get size(): number {
    return this.byId.size
  }

  get(id: string): T | undefined {
    return this.byId.get(id)
  }

  /** Every item, newest first. */
  values(): readonly T[] {
    this.newestFirst ??= [...this.ordered].reverse()
    return this.newestFirst
  }

  /** Every item, oldest first (the order a snapshot keeps, so that restoring it appends). */
  oldestFirst(): readonly T[] {
    return this.ordered
  }

  /** Adds many items at once (seeding): one sort instead of n inserts. */
  load(items: Iterable<T>): void {
    for (const item of items) {
      this.onChange?.(item.id, item, this.byId.get(item.id) ?? null)
      this.byId.set(item.id, item)
    }
    this.ordered = [...this.byId.values()].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1))
    this.newestFirst = undefined
    for (const index of this.indexes.values()) {
      index.lists.clear()
      for (const item of this.ordered) {
        const value = String(item[index.field])
        const list = index.lists.get(value)
        if (list) list.push(item)
        else index.lists.set(value, [item])
      }
    }
  }

  /** Adds an item, or replaces the one with its id (items are replaced, never changed in place). */
  put(item: T): void {
    const before = this.byId.get(item.id) ?? null
    this.set(item)
    this.onChange?.(item.id, item, before)
  }

  /** Sets (or with null removes) an item without telling `onChange`: a change made elsewhere, applied here. */
  apply(id: string, item: T | null): void {
    if (item === null) this.unset(id)
    else this.set(item)
  }

  private set(item: T): void {
    const previous = this.byId.get(item.id)
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: a shortcut: removing the old version and inserting the new one leaves every list as swapping it in place
    if (previous && sortKey(previous) === sortKey(item)) {
      this.replaceInPlace(previous, item)
      return
    }
    if (previous) this.unset(item.id)
    this.byId.set(item.id, item)
    this.tombstones.delete(item.id)
    this.newestFirst = undefined
    insertSorted(this.ordered, item)
    for (const index of this.indexes.values()) {
      const value = String(item[index.field])
      const list = index.lists.get(value)
      if (list) insertSorted(list, item)
      else index.lists.set(value, [item])
    }
  }

  remove(id: string): T | undefined {
    const item = this.unset(id)
    if (item) this.onChange?.(id, null, item)
    return item
  }

  /** Swaps an item for its new version at the same position of every list (same `created_at` and id). */
  private replaceInPlace(previous: T, item: T): void {
    this.byId.set(item.id, item)
    this.newestFirst = undefined
    const key = sortKey(item)
    const swap = (list: T[]) => {
      const position = firstFrom(list, key, true)
      if (list[position] === previous) list[position] = item
    }
    swap(this.ordered)
    for (const index of this.indexes.values()) {
      const oldValue = String(previous[index.field])
      const newValue = String(item[index.field])
      if (oldValue === newValue) {
        const list = index.lists.get(newValue)
        if (list) swap(list)
        continue
      }
      const oldList = index.lists.get(oldValue)
      if (oldList) removeSorted(oldList, key)
      const newList = index.lists.get(newValue)
      if (newList) insertSorted(newList, item)
      else index.lists.set(newValue, [item])
    }
  }

  private unset(id: string): T | undefined {
    const item = this.byId.get(id)
    if (!item) return undefined
    this.byId.delete(id)
    this.newestFirst = undefined
    const key = sortKey(item)
    removeSorted(this.ordered, key)
    for (const index of this.indexes.values()) {
      const list = index.lists.get(String(item[index.field]))
      if (list) removeSorted(list, key)
    }
    this.tombstones.set(id, key)
    // Deleted ids stay usable as cursors for a while; the oldest are forgotten past a bound.
    if (this.tombstones.size > MAX_TOMBSTONES) {
      const oldest = this.tombstones.keys().next().value
      if (oldest !== undefined) this.tombstones.delete(oldest)
    }
    return item
  }

  clear(): void {
    this.byId.clear()
    this.ordered = []
    this.newestFirst = undefined
    this.tombstones.clear()
    for (const index of this.indexes.values()) index.lists.clear()
  }

  /** One page in newest-first order, Stripe-style: `starting_after` pages older, `ending_before` newer. */
  page(query: PageQuery<T>): PageResult<T> {
    const source = query.index
      ? (this.indexes.get(query.index.name)?.lists.get(query.index.value) ?? [])
      : this.ordered
    const matches = query.filter ?? (() => true)
    const limit = query.limit
    if (query.ending_before !== undefined) {
      const key = this.keyOf(query.ending_before)
      if (key === undefined) return { ok: false, param: 'ending_before', id: query.ending_before }
      // Newer than the cursor, nearest first.
      const found: T[] = []
      for (let i = firstFrom(source, key, false); i < source.length && found.length <= limit; i++) {
        const item = source[i] as T
        if (matches(item)) found.push(item)
      }
      const has_more = found.length > limit
      const page = found.slice(0, limit)
      return { ok: true, data: page.reverse(), has_more }
    }
    // Older than the cursor (or from the newest), newest first.
    let start = source.length - 1
    if (query.starting_after !== undefined) {
      const key = this.keyOf(query.starting_after)
      if (key === undefined) return { ok: false, param: 'starting_after', id: query.starting_after }
      start = firstFrom(source, key, true) - 1
    }
    const found: T[] = []
    for (let i = start; i >= 0 && found.length <= limit; i--) {
      const item = source[i] as T
      if (matches(item)) found.push(item)
    }
    const has_more = found.length > limit
    return { ok: true, data: found.slice(0, limit), has_more }
  }

  private keyOf(id: string): string | undefined {
    const item = this.byId.get(id)
    return item ? sortKey(item) : this.tombstones.get(id)
  }
}

/** Inserts into an oldest-first list; the newest item (every create) lands at the end. */
function insertSorted<T extends Listable>(list: T[], item: T): void {
  const key = sortKey(item)
  const last = list[list.length - 1]
  if (last === undefined || sortKey(last) < key) {
    list.push(item)
    return
  }
  list.splice(firstFrom(list, key, false), 0, item)
}

function removeSorted<T extends Listable>(list: T[], key: string): void {
  const position = firstFrom(list, key, true)
  if (position < list.length && sortKey(list[position] as T) === key) list.splice(position, 1)
}

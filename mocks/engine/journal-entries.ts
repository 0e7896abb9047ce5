/** Holes at the front past which the log is copied down (amortized: once per this many removals at most). */
const COMPACT_AFTER = 1024

/**
 * The journal's entries by id, in the order they were set (a `Map`'s order), kept as a log of ids and values:
 * the journal's every request appends one entry and removes the oldest, which here costs two array writes and
 * no hash table, whose random reads missed the cache on every request.
 *
 * An id is found by the position it has in the log: the front is compared directly (the oldest, the one a
 * new request pushes out), anything else through an index of positions, built when first needed and kept up to
 * date while lookups keep coming. An entry is added by `appendNew`, which takes its id for new (a request id,
 * drawn at random, is never in the journal already) unless an index says otherwise.
 */
export class JournalEntries<V> {
  private ids: (string | undefined)[] = []
  private values: (V | undefined)[] = []
  /** The first position that may hold an entry (every position before it is a hole). */
  private head = 0
  private count = 0
  /** Positions by id, while lookups need it; undefined: to build from the log. */
  private index: Map<string, number> | undefined
  /** Appends since the index was last needed: past the log's size it is dropped. */
  private appendsSinceLookup = 0

  get size(): number {
    return this.count
  }

  /** The position of `id` in the log, or -1. */
  private find(id: string): number {
    if (this.count > 0 && this.ids[this.head] === id) return this.head
    if (this.index === undefined) {
      this.index = new Map()
      for (let i = this.head; i < this.ids.length; i++) {
        const key = this.ids[i]
        if (key !== undefined) this.index.set(key, i)
      }
    }
    this.appendsSinceLookup = 0
    return this.index.get(id) ?? -1
  }

  /** The value of an entry, or undefined. */
  get(id: string): V | undefined {
    const at = this.find(id)
    return at < 0 ? undefined : this.values[at]
  }

  /**
   * Appends an entry whose id is new to the log (a request id just drawn); with an index, an id that is there
   * after all is set in its place, as `set` does.
   */
  appendNew(id: string, value: V): void {
    if (this.index !== undefined) {
      const at = this.index.get(id)
      if (at !== undefined) {
        this.values[at] = value
        return
      }
      if (++this.appendsSinceLookup > this.count + COMPACT_AFTER) this.index = undefined
      else this.index.set(id, this.ids.length)
    }
    this.ids.push(id)
    this.values.push(value)
    this.count++
  }

  /** Removes an entry; its value, or undefined when it was not there. */
  remove(id: string): V | undefined {
    const at = this.find(id)
    if (at < 0) return undefined
    const value = this.values[at]
    this.ids[at] = undefined
    this.values[at] = undefined
    this.index?.delete(id)
    this.count--
    while (this.head < this.ids.length && this.ids[this.head] === undefined) this.head++
    if (this.head >= COMPACT_AFTER && this.head * 2 >= this.ids.length) this.compact()
    return value
  }

  clear(): void {
    this.ids = []
    this.values = []
    this.head = 0
    this.count = 0
    this.index = undefined
  }

  /** Ids and values, oldest first. */
  *entries(): IterableIterator<[string, V]> {
    for (let i = this.head; i < this.ids.length; i++) {
      const id = this.ids[i]
      if (id !== undefined) yield [id, this.values[i] as V]
    }
  }

  /** Values, oldest first. */
  valuesInOrder(): V[] {
    const out: V[] = []
    for (let i = this.head; i < this.ids.length; i++)
      if (this.ids[i] !== undefined) out.push(this.values[i] as V)
    return out
  }

  /** Ids, oldest first. */
  keys(): string[] {
    const out: string[] = []
    for (let i = this.head; i < this.ids.length; i++) {
      const id = this.ids[i]
      if (id !== undefined) out.push(id)
    }
    return out
  }

  /** Drops the holes at the front (positions move: the index is made again when next needed). */
  private compact(): void {
    this.ids = this.ids.slice(this.head)
    this.values = this.values.slice(this.head)
    this.head = 0
    this.index = undefined
  }
}

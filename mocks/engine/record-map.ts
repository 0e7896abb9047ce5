/** Told of every change a record map makes to itself: the new record (null: deleted), the old one, and `soft`. */
export type RecordChange<T> = (key: string, value: T | null, before: T | null, soft: boolean) => void

/**
 * Records by key, in insertion order, that tells `onChange` of every change made through `put` and `delete`
 * (a table of the engine's state, or a part of one). Records are replaced, never changed in place.
 */
export class RecordMap<T> {
  private readonly records = new Map<string, T>()

  constructor(private readonly onChange?: RecordChange<T>) {}

  get size(): number {
    return this.records.size
  }

  get(key: string): T | undefined {
    return this.records.get(key)
  }

  values(): IterableIterator<T> {
    return this.records.values()
  }

  entries(): IterableIterator<[string, T]> {
    return this.records.entries()
  }

  keys(): IterableIterator<string> {
    return this.records.keys()
  }

  /** Sets a record; `soft`: bookkeeping that may be saved a moment later. */
  put(key: string, value: T, soft = false): void {
    const before = this.records.get(key) ?? null
    this.records.set(key, value)
    this.onChange?.(key, value, before, soft)
  }

  delete(key: string, soft = false): boolean {
    const before = this.records.get(key)
    if (before === undefined) return false
    this.records.delete(key)
    this.onChange?.(key, null, before, soft)
    return true
  }

  /** Sets (or with null deletes) a record without telling `onChange`: a change made elsewhere, applied here. */
  apply(key: string, value: T | null): void {
    if (value === null) this.records.delete(key)
    else this.records.set(key, value)
  }

  clear(): void {
    this.records.clear()
  }
}

/**
 * One change to one record of the engine's state: `value` is the record's new value, or `null` when the
 * record is deleted. Records are plain JSON values, never changed in place once recorded (copy-on-write), so a
 * change, a snapshot and a log line can hold them without copying.
 */
export interface Change {
  table: string
  key: string
  value: unknown
}

/** A change with what the record was before it (`null`: it did not exist), so that it can be undone. */
export interface RecordedChange extends Change {
  before: unknown
}

/**
 * The changes one request (or one scheduled step) made, in order. A set is applied, stored and replicated
 * whole: a store never keeps half of one.
 */
export interface ChangeSet {
  changes: RecordedChange[]
  /**
   * Whether the set must be durable before its request is answered. Sets made only of bookkeeping (rate-limit
   * windows, a key's last-used time, the journal) may be saved a moment later: losing the last second of them
   * in a crash loses nothing a client was told had happened.
   */
  durable: boolean
  /** The set starts by emptying every table (a reset to the seeded state, whose records follow). */
  reset?: boolean
  /** For a reset set: the state before it, to undo it. Kept in this process only, never stored. */
  resetFrom?: StateSnapshot
}

/** The whole state as plain JSON: every table's records, by table. */
export interface StateSnapshot {
  version: 2
  tables: Record<string, [key: string, value: unknown][]>
}

/** A change set as stores keep it: without the before-images, which only matter in this process. */
export interface StoredChangeSet {
  changes: Change[]
  reset?: boolean
}

/** The stored form of a change set. */
export function toStored(set: ChangeSet): StoredChangeSet {
  const changes = set.changes.map(({ table, key, value }) => ({ table, key, value }))
  return set.reset ? { changes, reset: true } : { changes }
}

import type { ChangeSet, RecordedChange, StateSnapshot, StoredChangeSet } from './change-set.ts'

/**
 * One table of the engine's state, kept by the module that owns it (accounts, keys, agents, ...) in whatever
 * form serves its reads (maps, sorted lists, indexes). The module records every change it makes to itself
 * (`state.record`); `apply` is how changes made elsewhere (a store's log, another mock process) reach it.
 */
export interface Table {
  /** Sets a record (`null`: deletes it), updating the table's indexes, without recording anything. */
  apply(key: string, value: unknown): void
  /** Every record, for a snapshot. */
  entries(): Iterable<[string, unknown]>
  /** Forgets every record. */
  clear(): void
  /**
   * The account a record belongs to (`record`: its value, or what it was before a deletion), for a store that
   * keeps each account's records apart; absent, or undefined: the record is global (the clock, scenarios).
   */
  account?(key: string, record: unknown): string | undefined
}

/**
 * The engine's state as named tables of JSON records, and the log of what the current request changed.
 * Requests run synchronously, one at a time, so the changes recorded between two `take()` calls are exactly
 * one request's: a store saves them as one set, replicates them, or undoes them when they could not be saved.
 */
export function createState() {
  const tables = new Map<string, Table>()
  let recorded: RecordedChange[] = []
  let durable = false
  let resetFrom: StateSnapshot | undefined
  let applying = 0
  let version = 0

  function table(name: string): Table {
    const found = tables.get(name)
    if (!found) throw new Error(`No table '${name}' in the engine's state.`)
    return found
  }

  function silently(work: () => void): void {
    applying++
    try {
      work()
    } finally {
      applying--
    }
  }

  function snapshot(): StateSnapshot {
    const out: StateSnapshot = { version: 2, tables: {} }
    for (const [name, t] of tables) out.tables[name] = [...t.entries()]
    return out
  }

  function load(state: StateSnapshot): void {
    for (const t of tables.values()) t.clear()
    for (const [name, records] of Object.entries(state.tables)) {
      const t = tables.get(name)
      if (!t) continue
      for (const [key, value] of records) t.apply(key, value)
    }
  }

  return {
    /** Adds a table; every table is registered before the first change. */
    register(name: string, t: Table): void {
      if (tables.has(name)) throw new Error(`Table '${name}' is registered twice.`)
      tables.set(name, t)
    },

    /**
     * Records a change a table made to itself. `soft`: bookkeeping that may be saved a moment later (rate-limit
     * windows, last-used times, the journal). Nothing is recorded while changes from elsewhere are applied.
     */
    record(tableName: string, key: string, value: unknown, before: unknown, soft = false): void {
      if (applying > 0) return
      recorded.push({ table: tableName, key, value, before })
      if (!soft) durable = true
    },

    /** Whether anything was recorded since the last `take()`. */
    pending: () => recorded.length > 0 || resetFrom !== undefined,

    /** The changes recorded since the last call, as one set (empty when nothing changed). */
    take(): ChangeSet {
      const set: ChangeSet = { changes: recorded, durable }
      if (resetFrom) {
        set.reset = true
        set.durable = true
        set.resetFrom = resetFrom
      }
      if (set.durable) version++
      recorded = []
      durable = false
      resetFrom = undefined
      return set
    },

    /** Applies sets from a store or another process, in order (a reset set first empties every table). */
    apply(sets: readonly StoredChangeSet[]): void {
      if (sets.length === 0) return
      silently(() => {
        for (const set of sets) {
          if (set.reset) for (const t of tables.values()) t.clear()
          for (const change of set.changes) table(change.table).apply(change.key, change.value)
        }
      })
      version++
    },

    /** Undoes a set taken here, newest change first: what a store does when the set could not be saved. */
    undo(set: ChangeSet): void {
      silently(() => {
        if (set.resetFrom) {
          load(set.resetFrom)
          return
        }
        for (let i = set.changes.length - 1; i >= 0; i--) {
          const change = set.changes[i] as RecordedChange
          table(change.table).apply(change.key, change.before)
        }
      })
      version++
    },

    /** Every table's records. */
    snapshot,

    /** Replaces the whole state by a snapshot without recording it (a store's saved state at start). */
    restore(state: StateSnapshot): void {
      silently(() => load(state))
      version++
    },

    /**
     * Replaces the whole state by a snapshot and records it as one reset set: every table emptied, then each
     * of the snapshot's records put back (the control plane's reset to the seeded state).
     */
    resetTo(state: StateSnapshot): void {
      resetFrom = snapshot()
      silently(() => load(state))
      recorded = []
      for (const [name, records] of Object.entries(state.tables))
        for (const [key, value] of records) recorded.push({ table: name, key, value, before: null })
      durable = true
    },

    /** Moves whenever the data changes (a durable set taken, or sets applied or undone): caches compare it. */
    version: () => version,

    /** The account a record of `tableName` belongs to, or undefined for a global record (`Table.account`). */
    accountOf(tableName: string, key: string, record: unknown): string | undefined {
      return tables.get(tableName)?.account?.(key, record)
    },
  }
}

export type EngineState = ReturnType<typeof createState>

import type { Change, ChangeSet, StoredChangeSet } from '../../engine/state/change-set.ts'
import type { EngineState } from '../../engine/state/state.ts'
import { recordField, splitField } from './redis-keys.ts'

/** Tables the store treats apart: counted in Redis by its own script, and appended in the background. */
const WINDOWS = 'windows'
const JOURNAL = 'journal'
const KEYS = 'keys'
const ACCOUNTS = 'accounts'

/** Where the changes of one or more steps go. */
export interface RoutedChanges {
  /** Changes to accounts' records, by account, in order. */
  accounts: Map<string, Change[]>
  /** Changes to global records, in order. */
  global: Change[]
  /** Journal entries recorded (soft: appended to the journal stream in the background). */
  journal: unknown[]
  /** Keys created (digest, account) and removed (digest): the global index a process finds a key by. */
  keysAdded: [digest: string, account: string][]
  keysRemoved: string[]
  /** Accounts created and deleted: the global index of accounts. */
  accountsAdded: string[]
  accountsRemoved: string[]
}

/** Sorts the changes of `sets` by where they live (rate-limit windows are counted by the store itself). */
export function routeChanges(state: EngineState, sets: readonly ChangeSet[]): RoutedChanges {
  const routed: RoutedChanges = {
    accounts: new Map(),
    global: [],
    journal: [],
    keysAdded: [],
    keysRemoved: [],
    accountsAdded: [],
    accountsRemoved: [],
  }
  for (const set of sets)
    for (const { table, key, value, before } of set.changes) {
      if (table === WINDOWS) continue
      if (table === JOURNAL) {
        if (value !== null) routed.journal.push(value)
        continue
      }
      if (table === KEYS) {
        const now = value as { hash: string } | null
        const was = before as { hash: string } | null
        if (was && was.hash !== now?.hash) routed.keysRemoved.push(was.hash)
        if (now && now.hash !== was?.hash)
          routed.keysAdded.push([now.hash, (value as { record: { account_id: string } }).record.account_id])
      }
      if (table === ACCOUNTS) {
        if (before === null && value !== null) routed.accountsAdded.push(key)
        if (value === null && before !== null) routed.accountsRemoved.push(key)
      }
      const account = state.accountOf(table, key, value ?? before)
      const change = { table, key, value }
      if (account === undefined) routed.global.push(change)
      else {
        const list = routed.accounts.get(account)
        if (list) list.push(change)
        else routed.accounts.set(account, [change])
      }
    }
  return routed
}

/**
 * The net effect of changes kept together as one version: each record's last value only, in the order of
 * those last changes (a record written by each of a batch's steps is sent once).
 */
export function netChanges(changes: readonly Change[]): Change[] {
  if (changes.length < 2) return [...changes]
  const last = new Map<string, Change>()
  for (const change of changes) {
    const field = recordField(change.table, change.key)
    last.delete(field)
    last.set(field, change)
  }
  return [...last.values()]
}

/** Changes as a records hash takes them (field, JSON or '' to delete) and as a feed entry carries them. */
export interface EncodedChanges {
  args: string[]
  payload: string
}

/** Encodes changes once: each value is serialised a single time for both forms. */
export function encodeChanges(changes: readonly Change[]): EncodedChanges {
  const args: string[] = []
  const parts: string[] = []
  for (const { table, key, value } of changes) {
    const json = value === null ? '' : JSON.stringify(value)
    args.push(recordField(table, key), json)
    parts.push(`[${JSON.stringify(table)},${JSON.stringify(key)},${json === '' ? 'null' : json}]`)
  }
  return { args, payload: `[${parts.join(',')}]` }
}

/** A feed entry (`<version> <JSON>`): its version, and its change set, or 'reset' for a new epoch. */
export function decodeEntry(entry: string): { version: number; set: StoredChangeSet | 'reset' } {
  const space = entry.indexOf(' ')
  const version = Number(entry.slice(0, space))
  const body = JSON.parse(entry.slice(space + 1)) as [string, string, unknown][] | 'reset'
  if (body === 'reset') return { version, set: 'reset' }
  return { version, set: { changes: body.map(([table, key, value]) => ({ table, key, value })) } }
}

/** A records hash as HGETALL gives it (field, JSON, field, JSON, ...), as changes. */
export function recordsAsChanges(flat: readonly string[]): Change[] {
  const changes: Change[] = []
  for (let i = 0; i < flat.length; i += 2) {
    const [table, key] = splitField(flat[i] as string)
    changes.push({ table, key, value: JSON.parse(flat[i + 1] as string) })
  }
  return changes
}

/** An account's windows hash (per-second counts, and `t<seconds>` totals) as changes of the windows table. */
export function windowsAsChanges(account: string, flat: readonly string[]): Change[] {
  const changes: Change[] = []
  for (let i = 0; i < flat.length; i += 2) {
    const field = flat[i] as string
    if (field.startsWith('t')) continue
    changes.push({ table: WINDOWS, key: `${account}/${field}`, value: Number(flat[i + 1]) })
  }
  return changes
}

/**
 * Changes that make this process's records of one part (an account, or the global part when `account` is
 * undefined) exactly `records`: every record of it that is not there is deleted. Reads every table (a
 * process that fell far behind, which is rare).
 */
export function replacementOf(state: EngineState, account: string | undefined, records: Change[]): Change[] {
  const kept = new Set(records.map((change) => recordField(change.table, change.key)))
  const deletions: Change[] = []
  for (const [table, entries] of Object.entries(state.snapshot().tables)) {
    if (table === WINDOWS || table === JOURNAL) continue
    for (const [key, value] of entries)
      if (state.accountOf(table, key, value) === account && !kept.has(recordField(table, key)))
        deletions.push({ table, key, value: null })
  }
  return [...deletions, ...records]
}

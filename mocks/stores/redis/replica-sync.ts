import type { Change, StateSnapshot, StoredChangeSet } from '../../engine/state/change-set.ts'
import type { EngineState } from '../../engine/state/state.ts'
import { decodeEntry, recordsAsChanges, replacementOf, windowsAsChanges } from './change-routing.ts'
import { partitionKeys } from './redis-keys.ts'
import type { StoreContext } from './store-context.ts'

/** Accounts read at once when the whole store is read. */
const PARALLEL = 64

type AccountReply = [
  status: 'same' | 'delta' | 'reload',
  version: number,
  counted: number,
  changes: string[],
  windows: string[] | 0,
]

/** Runs `work` over `items`, `PARALLEL` at a time. */
export async function inParallel<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += PARALLEL) await Promise.all(items.slice(i, i + PARALLEL).map(work))
}

function accountKeys(ctx: StoreContext, account: string) {
  const keys = partitionKeys(ctx.prefix, account, ctx.replica.epoch)
  return [keys.state, keys.records, keys.feed, keys.windows]
}

/** The command that reads an account (`known` undefined: whole); `clear`: the caller holds the global lock. */
export function readAccount(
  ctx: StoreContext,
  account: string,
  known: { version: number; counted: number } | undefined,
  clear: boolean,
): Promise<AccountReply | ['busy', string]> {
  return ctx.connection.script('readAccount', accountKeys(ctx, account), [
    known?.version ?? -1,
    known?.counted ?? -1,
    clear ? '1' : '0',
  ]) as Promise<AccountReply | ['busy', string]>
}

/** Applies an account's reply to this copy; false when a global step's mark kept it from being read. */
export function applyAccount(
  ctx: StoreContext,
  state: EngineState,
  account: string,
  reply: AccountReply | ['busy', string],
): boolean {
  if (reply[0] === 'busy') return false
  state.apply(changesOf(state, account, reply))
  ctx.replica.accounts.set(account, { version: reply[1], counted: reply[2] })
  return true
}

/**
 * Brings this copy of every account in `accounts` up to date, `PARALLEL` per round trip, under the global lock
 * (a global step's mark found is a dead process's: dropped).
 */
export async function syncAccounts(
  ctx: StoreContext,
  state: EngineState,
  accounts: readonly string[],
): Promise<void> {
  for (let i = 0; i < accounts.length; i += PARALLEL) {
    const chunk = accounts.slice(i, i + PARALLEL)
    const replies = await ctx.connection.trip(
      ...chunk.map((account) => readAccount(ctx, account, ctx.replica.accounts.get(account), true)),
    )
    for (const [j, reply] of replies.entries()) applyAccount(ctx, state, chunk[j] as string, reply)
  }
}

/** The changes an account reply brings to a copy (its records, or the sets it missed, and its windows). */
function changesOf(state: EngineState | undefined, account: string, reply: AccountReply): StoredChangeSet[] {
  const [status, , , changes, windows] = reply
  const sets: StoredChangeSet[] = []
  if (status === 'delta') for (const entry of changes) sets.push(decodeEntry(entry).set as StoredChangeSet)
  if (status === 'reload') {
    const records = recordsAsChanges(changes)
    sets.push({ changes: state ? replacementOf(state, account, records) : records })
  }
  if (windows !== 0) sets.push({ changes: windowsAsChanges(account, windows) })
  return sets
}

/**
 * Brings this copy of an account up to date; answers the deadline of a global step's mark instead when one
 * is changing it (`clear`: the caller holds the global lock, so such a mark is a dead process's: dropped).
 */
export async function syncAccount(
  ctx: StoreContext,
  state: EngineState,
  account: string,
  options: { clear: boolean; whole?: boolean },
): Promise<{ busy: number } | undefined> {
  const known = options.whole ? undefined : ctx.replica.accounts.get(account)
  const [reply] = await ctx.connection.trip(readAccount(ctx, account, known, options.clear))
  return applyAccount(ctx, state, account, reply) ? undefined : { busy: Number(reply[1]) }
}

/** Applies the sets an account's `stale` answer brought (or reads it whole when they no longer reach back). */
export async function applyStale(
  ctx: StoreContext,
  state: EngineState,
  account: string,
  reply: readonly unknown[],
): Promise<{ busy: number } | undefined> {
  if (reply[2] === 'reload') return syncAccount(ctx, state, account, { clear: false, whole: true })
  const sets = (reply.slice(3) as string[]).map((entry) => decodeEntry(entry).set as StoredChangeSet)
  state.apply(sets)
  const known = ctx.replica.accounts.get(account)
  ctx.replica.accounts.set(account, { version: Number(reply[1]), counted: known?.counted ?? -1 })
  return undefined
}

/**
 * Brings this copy of the global part up to date; answers 'whole' when the store moved to a new epoch (a
 * reset) or the feed no longer reaches back: the caller then reads the store whole.
 */
export async function syncGlobal(ctx: StoreContext, state: EngineState): Promise<'ok' | 'whole'> {
  const [reply] = await ctx.connection.trip(
    ctx.connection.script('readGlobal', [ctx.globals.state, ctx.globals.feed], [ctx.replica.global]),
  )
  const [status, version, epoch, entries] = reply as [string, number, number, string[]]
  if (status === 'same') return 'ok'
  if (status === 'reload' || epoch !== ctx.replica.epoch) return 'whole'
  return applyGlobalEntries(ctx, state, version, entries)
}

/** Applies the global sets a copy missed, up to `version`; 'whole' when one of them starts a new epoch. */
export function applyGlobalEntries(
  ctx: StoreContext,
  state: EngineState,
  version: number,
  entries: readonly string[],
): 'ok' | 'whole' {
  const sets: StoredChangeSet[] = []
  for (const entry of entries) {
    const { set } = decodeEntry(entry)
    if (set === 'reset') return 'whole'
    sets.push(set)
  }
  state.apply(sets)
  ctx.replica.global = version
  return 'ok'
}

/** Journal list entries (`<process id> <JSON>`) that another process wrote, as changes of the journal table. */
function journalChanges(ctx: StoreContext, entries: readonly string[]): Change[] {
  const changes: Change[] = []
  for (const line of entries) {
    const space = line.indexOf(' ')
    if (line.slice(0, space) === ctx.processId) continue
    const entry = JSON.parse(line.slice(space + 1)) as { id?: string } | null
    if (entry?.id) changes.push({ table: 'journal', key: entry.id, value: entry })
  }
  return changes
}

/** Adds the journal entries other processes appended since the last read; `count`: the list's count now. */
export function applyJournal(
  ctx: StoreContext,
  state: EngineState,
  count: number,
  entries: readonly string[],
) {
  ctx.replica.journalRead = count
  if (entries.length > 0) state.apply([{ changes: journalChanges(ctx, entries) }])
}

/**
 * The whole store at `epoch` (global version `global`), read under the global lock: a snapshot for the
 * engine, and this copy's versions set to what was read.
 */
export async function readWhole(ctx: StoreContext, epoch: number, global: number): Promise<StateSnapshot> {
  const { client } = ctx.connection
  ctx.replica.epoch = epoch
  ctx.replica.global = global
  ctx.replica.accounts = new Map()
  const tables: Record<string, [string, unknown][]> = {}
  const add = (changes: readonly Change[]) => {
    for (const { table, key, value } of changes) {
      tables[table] ??= []
      tables[table].push([key, value])
    }
  }
  const globalRecords = await client.hgetall(ctx.globals.records(epoch))
  add(recordsAsChanges(Object.entries(globalRecords).flat()))
  const accounts = await client.smembers(ctx.globals.accounts(epoch))
  await inParallel(accounts, async (account) => {
    const reply = await readAccount(ctx, account, undefined, true)
    if (reply[0] === 'busy') return
    for (const set of changesOf(undefined, account, reply)) add(set.changes)
    ctx.replica.accounts.set(account, { version: reply[1], counted: reply[2] })
  })
  const [count, newest] = await Promise.all([
    client.get(ctx.globals.journalCount(epoch)),
    client.lrange(ctx.globals.journal(epoch), -ctx.journalCapacity, -1),
  ])
  ctx.replica.journalRead = Number(count ?? 0)
  add(journalChanges({ ...ctx, processId: '' }, newest))
  return { version: 2, tables }
}

import type { RedisConnection } from './redis-connection.ts'
import { type GlobalKeys, partitionKeys } from './redis-keys.ts'

/** What this process's copy of the state holds of the store: versions of each part, the epoch. */
export interface Replica {
  epoch: number
  /** Version of the global part. */
  global: number
  /** Each account's version and count of counted requests (its windows' version) in this copy. */
  accounts: Map<string, { version: number; counted: number }>
  /** Journal entries read (the count of the journal list when it was last read). */
  journalRead: number
}

/** What the parts of the Redis store share: the connection, the key names, this copy's versions. */
export interface StoreContext {
  connection: RedisConnection
  prefix: string
  globals: GlobalKeys
  replica: Replica
  processId: string
  /** The journal kept (entries). */
  journalCapacity: number
  /** Change sets kept in each feed. */
  feedLength: number
}

/** The windows of every plan (hourly, burst): the keys dropped with an account. */
export const WINDOW_SECONDS = [60, 3600]

/** An account's keys at the store's current epoch. */
export const keysOf = (ctx: StoreContext, account: string) =>
  partitionKeys(ctx.prefix, account, ctx.replica.epoch)

/** The version of an account this copy holds. */
export const knownVersion = (ctx: StoreContext, account: string) =>
  ctx.replica.accounts.get(account)?.version ?? 0

/** Every key of an account's partition in an epoch: its state, records, feed, windows and window lists. */
export function accountKeyList(ctx: StoreContext, account: string, epoch: number): string[] {
  const keys = partitionKeys(ctx.prefix, account, epoch)
  return [keys.state, keys.records, keys.feed, keys.windows, ...WINDOW_SECONDS.map(keys.windowList)]
}

/** The keys a commit on an account touches: its state, records and feed; all of them when it is deleted. */
export function commitKeys(ctx: StoreContext, account: string, drop: boolean, epoch = ctx.replica.epoch) {
  if (drop) return accountKeyList(ctx, account, epoch)
  const keys = partitionKeys(ctx.prefix, account, epoch)
  return [keys.state, keys.records, keys.feed]
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

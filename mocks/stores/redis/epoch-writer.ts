import type { StateSnapshot } from '../../engine/state/change-set.ts'
import type { EngineState } from '../../engine/state/state.ts'
import type { Lock } from './global-lock.ts'
import { partitionKeys, recordField } from './redis-keys.ts'
import { inParallel } from './replica-sync.ts'
import { accountKeyList, type StoreContext } from './store-context.ts'

/** Records per command when a whole state is written. */
const CHUNK = 1000

/**
 * Writes this copy's whole state as the store's epoch `epoch` (a reset, or a new store's first state), then
 * switches the store to it in one step. Every process then reads the new epoch whole.
 */
export async function commitEpoch(
  ctx: StoreContext,
  engineState: EngineState,
  lock: Lock,
  epoch: number,
): Promise<boolean> {
  const { connection, globals, replica, prefix } = ctx
  const { client } = connection
  const snapshot: StateSnapshot = engineState.snapshot()
  const global: string[] = []
  const byAccount = new Map<string, string[]>()
  const accounts: string[] = []
  const keyIndex: [string, string][] = []
  for (const [table, records] of Object.entries(snapshot.tables)) {
    if (table === 'windows' || table === 'journal') continue
    for (const [key, value] of records) {
      const account = engineState.accountOf(table, key, value)
      const fields = account === undefined ? global : (byAccount.get(account) ?? [])
      if (account !== undefined) byAccount.set(account, fields)
      fields.push(recordField(table, key), JSON.stringify(value))
      if (table === 'accounts') accounts.push(key)
      if (table === 'keys') {
        const stored = value as { hash: string; record: { account_id: string } }
        keyIndex.push([stored.hash, stored.record.account_id])
      }
    }
  }
  const nextGlobal = Math.max(lock.global, replica.global) + 1
  const chunked = (
    key: string,
    fields: string[],
    write: (key: string, chunk: string[]) => Promise<unknown>,
  ) => {
    const sent: Promise<unknown>[] = []
    for (let i = 0; i < fields.length; i += CHUNK * 2) sent.push(write(key, fields.slice(i, i + CHUNK * 2)))
    return sent
  }
  const hset = (key: string, chunk: string[]) => client.hset(key, ...chunk)
  await inParallel([...byAccount], async ([account, fields]) => {
    const keys = partitionKeys(prefix, account, epoch)
    await client.del(...accountKeyList(ctx, account, epoch))
    await Promise.all(chunked(keys.records, fields, hset))
    await client.hset(keys.state, 'v', 1, 'g', nextGlobal)
  })
  await client.del(
    globals.records(epoch),
    globals.accounts(epoch),
    globals.keys(epoch),
    globals.journal(epoch),
    globals.journalCount(epoch),
  )
  const pairs = keyIndex.flat()
  await Promise.all([
    ...chunked(globals.records(epoch), global, hset),
    ...chunked(globals.keys(epoch), pairs, hset),
    ...chunked(globals.accounts(epoch), accounts, (key, chunk) => client.sadd(key, ...chunk)),
  ])
  const previous = replica.epoch
  const [version] = await connection.trip(
    connection.script(
      'switchEpoch',
      [globals.lock, globals.state, globals.feed, globals.released],
      [lock.token, epoch, ctx.feedLength, '0'],
    ),
  )
  replica.epoch = epoch
  replica.global = Number(version)
  replica.accounts = new Map([...byAccount.keys()].map((account) => [account, { version: 1, counted: 0 }]))
  replica.journalRead = 0
  lock.epoch = epoch
  lock.global = replica.global
  if (previous > 0) forgetEpoch(ctx, previous)
  return true
}

/** Deletes an epoch's keys a while after the store left it (processes still on it notice first). */
function forgetEpoch(ctx: StoreContext, epoch: number): void {
  const { connection, globals } = ctx
  const { client } = connection
  const timer = setTimeout(async () => {
    try {
      const accounts = await client.smembers(globals.accounts(epoch))
      await inParallel(accounts, async (account) => {
        await client.del(...accountKeyList(ctx, account, epoch))
      })
      await client.del(
        globals.records(epoch),
        globals.accounts(epoch),
        globals.keys(epoch),
        globals.journal(epoch),
        globals.journalCount(epoch),
      )
    } catch {
      // Left for later: they are never read again.
    }
  }, 10_000)
  timer.unref()
}

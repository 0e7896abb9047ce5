import type { EngineState } from '../../engine/state/state.ts'
import { StoreUnavailable } from '../../engine/state/store.ts'
import { encodeChanges, netChanges, type RoutedChanges } from './change-routing.ts'
import { carryOutIntent, type Intent, type IntentPart, type Lock } from './global-lock.ts'
import { applyStale, syncAccount } from './replica-sync.ts'
import { commitKeys, keysOf, knownVersion, type StoreContext } from './store-context.ts'

/** Keeps a global step's changes: answers false when an account changed under it (it runs again). */
export async function commitRouted(
  ctx: StoreContext,
  state: EngineState,
  lock: Lock,
  routed: RoutedChanges,
): Promise<boolean> {
  const { connection, globals, replica } = ctx
  const { client } = connection
  // New accounts and keys enter the indexes with the first command of the commit (nobody looks a key up
  // before its creation was answered; an entry whose creation is then not kept finds nothing).
  const indexed = () => {
    const sent: Promise<unknown>[] = []
    if (routed.accountsAdded.length > 0)
      sent.push(client.sadd(globals.accounts(replica.epoch), ...routed.accountsAdded))
    if (routed.keysAdded.length > 0)
      sent.push(client.hset(globals.keys(replica.epoch), Object.fromEntries(routed.keysAdded)))
    return sent
  }
  const parts = [...routed.accounts.keys()]
  const globalEncoded = encodeChanges(netChanges(routed.global))
  if (parts.length === 1 && routed.global.length === 0) {
    const account = parts[0] as string
    const drop = routed.accountsRemoved.includes(account)
    const { args, payload } = encodeChanges(netChanges(routed.accounts.get(account) ?? []))
    const [reply] = await connection.trip(
      connection.script('commit', commitKeys(ctx, account, drop), [
        knownVersion(ctx, account),
        replica.global,
        ctx.feedLength,
        payload,
        drop ? '1' : '0',
        args.length / 2,
        ...args,
      ]),
      ...indexed(),
    )
    const answer = reply as unknown[]
    if (answer[0] !== 'ok') {
      if (answer[0] === 'stale') await applyStale(ctx, state, account, answer)
      else await syncAccount(ctx, state, account, { clear: true })
      return false
    }
    const known = replica.accounts.get(account)
    replica.accounts.set(account, { version: Number(answer[1]), counted: known?.counted ?? -1 })
  } else if (parts.length > 0) {
    const prepared = await connection.trip(
      ...parts.map((account) => {
        const keys = keysOf(ctx, account)
        return connection.script(
          'prepare',
          [keys.state, keys.feed],
          [knownVersion(ctx, account), lock.token, lock.deadline],
        ) as Promise<unknown[]>
      }),
    )
    if (prepared.some((answer) => answer[0] !== 'ok')) {
      await connection.trip(
        ...parts.map((account) => connection.script('unprepare', [keysOf(ctx, account).state], [lock.token])),
      )
      if (prepared.some((answer) => answer[0] === 'late'))
        throw new StoreUnavailable('the step took longer than the global lock lasts')
      for (const [i, answer] of prepared.entries())
        if (answer[0] === 'stale') await applyStale(ctx, state, parts[i] as string, answer)
      return false
    }
    const intentParts: IntentPart[] = parts.map((account) => ({
      account,
      base: knownVersion(ctx, account),
      drop: routed.accountsRemoved.includes(account),
      ...encodeChanges(netChanges(routed.accounts.get(account) ?? [])),
    }))
    const global = replica.global + (routed.global.length > 0 ? 1 : 0)
    const intent: Intent = { epoch: replica.epoch, global, parts: intentParts }
    await commitGlobal(ctx, lock, globalEncoded, JSON.stringify(intent), indexed())
    await carryOutIntent(ctx, intent, lock.token, lock)
    for (const part of intentParts) {
      const known = replica.accounts.get(part.account)
      replica.accounts.set(part.account, { version: part.base + 1, counted: known?.counted ?? -1 })
    }
  } else if (routed.global.length > 0) await commitGlobal(ctx, lock, globalEncoded, '', indexed())
  else {
    const sent = indexed()
    if (sent.length > 0) await connection.trip(...sent)
  }
  const removed: Promise<unknown>[] = []
  if (routed.accountsRemoved.length > 0)
    removed.push(client.srem(globals.accounts(replica.epoch), ...routed.accountsRemoved))
  if (routed.keysRemoved.length > 0)
    removed.push(client.hdel(globals.keys(replica.epoch), ...routed.keysRemoved))
  if (removed.length > 0) await connection.trip(...removed)
  return true
}

async function commitGlobal(
  ctx: StoreContext,
  lock: Lock,
  encoded: { args: string[]; payload: string },
  intent: string,
  alongside: Promise<unknown>[],
) {
  const { connection, globals, replica } = ctx
  const [reply] = await connection.trip(
    connection.script(
      'commitGlobal',
      [
        globals.lock,
        globals.state,
        globals.feed,
        globals.records(replica.epoch),
        globals.intent,
        globals.released,
      ],
      [lock.token, ctx.feedLength, encoded.payload, intent, '0', encoded.args.length / 2, ...encoded.args],
    ),
    ...alongside,
  )
  replica.global = Number((reply as unknown[])[1])
}

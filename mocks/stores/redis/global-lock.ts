import { randomBytes } from 'node:crypto'
import { readAccount } from './replica-sync.ts'
import { commitKeys, type StoreContext } from './store-context.ts'

/** Kept between a mark's deadline and the global lock's expiry (clocks of cluster nodes may differ). */
const MARGIN_MS = 1000

/** The global lock as its holder knows it, with what was read for its copy in the same round trip. */
export interface Lock {
  token: string
  /** Redis time (ms) before which the step must have committed; marks on accounts last until then. */
  deadline: number
  epoch: number
  global: number
  init: boolean
  /** What was read with the lock for this copy: the global sets it missed, the accounts, the journal. */
  read: {
    status: 'same' | 'delta' | 'whole'
    changes: string[]
    accounts: string[]
    journalCount: number
    journal: string[]
  }
}

/** One account's part of a global step's intent: its changes, as its commit takes them. */
export interface IntentPart {
  account: string
  /** The version the step read (and marked). */
  base: number
  args: string[]
  payload: string
  /** The account is deleted: its windows go too. */
  drop: boolean
}

/** A global step's changes to accounts, committed before they are made (`{global}:intent`). */
export interface Intent {
  /** The epoch the accounts' keys are in. */
  epoch: number
  /** The version of the global part after the step. */
  global: number
  parts: IntentPart[]
}

/**
 * Carries out an intent (idempotent): each account's part applied in one round trip, then the intent dropped
 * and the lock released (`finishGlobal`). By the step that wrote it, or by the next holder of the lock when that
 * step's process died: `owner` is the token of the step that wrote it, `lock` the lock held now.
 */
export async function carryOutIntent(
  ctx: StoreContext,
  intent: Intent,
  owner: string,
  lock: Lock,
): Promise<void> {
  const { connection, globals } = ctx
  await connection.trip(
    ...intent.parts.map((part) =>
      connection.script('apply', commitKeys(ctx, part.account, part.drop, intent.epoch), [
        owner,
        part.base,
        intent.global,
        ctx.feedLength,
        part.payload,
        part.drop ? '1' : '0',
        part.args.length / 2,
        ...part.args,
      ]),
    ),
  )
  await connection.trip(
    connection.script(
      'finishGlobal',
      [globals.lock, globals.intent, globals.released],
      [owner, lock.token, '0'],
    ),
  )
}

/**
 * The store's global lock (`{global}:lock`, `SET NX PX`): taken for a step over the whole state, and for setting
 * a store up. Whoever takes it first carries out the intent a holder that died left behind (its changes to
 * accounts, committed but perhaps not yet made everywhere).
 */
export async function createGlobalLock(ctx: StoreContext) {
  const { connection, globals, replica } = ctx
  let released: (() => void) | undefined
  await connection.listen(globals.released, () => released?.())

  return {
    /**
     * Takes the lock for `ttl` ms, waiting while another holds it. `preRead` (one Redis): in the same round
     * trip, reads every account this copy holds, sent after the lock in one pipeline, so read once the lock is
     * taken; their answers are put there.
     */
    async acquire(ttl: number, preRead?: Map<string, unknown>): Promise<Lock> {
      const token = randomBytes(16).toString('hex')
      for (let attempt = 0; ; attempt++) {
        const keys = [
          globals.lock,
          globals.state,
          globals.intent,
          globals.feed,
          globals.accounts(replica.epoch),
          globals.journal(replica.epoch),
          globals.journalCount(replica.epoch),
        ]
        const args = [token, ttl, replica.global, replica.epoch, replica.journalRead]
        // One Redis runs a pipeline in order: the reads come after the lock. A cluster's nodes do not.
        const readFirst = preRead && attempt === 0 && !connection.cluster ? [...replica.accounts.keys()] : []
        const [reply, ...read] = await connection.trip(
          connection.script('acquire', keys, args),
          ...readFirst.map((account) => readAccount(ctx, account, replica.accounts.get(account), false)),
        )
        preRead?.clear()
        if (reply) {
          const [
            time,
            global,
            epoch,
            init,
            intentToken,
            intentBody,
            status,
            changes,
            accounts,
            count,
            journal,
          ] = reply as [
            number,
            number,
            number,
            string,
            string,
            string,
            Lock['read']['status'],
            string[] | undefined,
            string[] | undefined,
            number | undefined,
            string[] | undefined,
          ]
          const lock: Lock = {
            token,
            deadline: time + ttl - MARGIN_MS,
            epoch,
            global,
            init: init === '1',
            read: {
              status,
              changes: changes ?? [],
              accounts: accounts ?? [],
              journalCount: count ?? replica.journalRead,
              journal: journal ?? [],
            },
          }
          if (intentToken) await carryOutIntent(ctx, JSON.parse(intentBody) as Intent, intentToken, lock)
          else for (const [i, account] of readFirst.entries()) preRead?.set(account, read[i])
          return lock
        }
        // Held by another: try again when it is let go (or a little later each time, should that be missed).
        const wait = Math.min(20, 0.5 * 1.5 ** Math.min(attempt, 12)) * (0.5 + Math.random())
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait)
          released = () => {
            clearTimeout(timer)
            released = undefined
            resolve()
          }
        })
      }
    },

    /** Lets go of the lock if this holder still holds it. */
    async release(lock: Lock): Promise<void> {
      await connection.script('release', [globals.lock, globals.released], [lock.token]).catch(() => {})
    },
  }
}

export type GlobalLock = Awaited<ReturnType<typeof createGlobalLock>>

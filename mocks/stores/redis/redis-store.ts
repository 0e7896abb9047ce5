import { randomBytes } from 'node:crypto'
import type { ChangeSet } from '../../engine/state/change-set.ts'
import type { EngineState } from '../../engine/state/state.ts'
import {
  type CountedRequest,
  type StateStore,
  type StepScope,
  StoreUnavailable,
} from '../../engine/state/store.ts'
import { encodeChanges, netChanges, type RoutedChanges, routeChanges } from './change-routing.ts'
import { commitEpoch } from './epoch-writer.ts'
import { commitRouted } from './global-commit.ts'
import { createGlobalLock, type Lock } from './global-lock.ts'
import { createJournalAppender } from './journal-appender.ts'
import {
  connectRedis,
  type RedisConnection,
  type RedisStoreStats,
  type RedisTarget,
  RedisUnavailable,
} from './redis-connection.ts'
import { globalKeys } from './redis-keys.ts'
import {
  applyAccount,
  applyGlobalEntries,
  applyJournal,
  applyStale,
  readWhole,
  syncAccount,
  syncAccounts,
  syncGlobal,
} from './replica-sync.ts'
import { keysOf, knownVersion, type Replica, type StoreContext, sleep } from './store-context.ts'
import { StoreGate } from './store-gate.ts'

export type { RedisStoreStats, RedisTarget }
export { RedisUnavailable }

export interface RedisStoreOptions {
  /** Prefix of every key the store uses. Default `vak:`. */
  prefix?: string
  /** How long the global lock lasts if its holder dies without letting go. Default 5 s. */
  lockTtlMs?: number
  /** Change sets kept per account (and for the global part) for processes that fall behind. Default 1,000. */
  feedLength?: number
}

/** A Redis store as the CLI reports it. */
export interface RedisStore extends StateStore {
  /** Whether another process had already set the store up (this one joined it). */
  joined(): boolean
  /** What the store sent to Redis so far. */
  stats(): RedisStoreStats
}

/** A step waiting to run. */
interface Job {
  step: () => unknown
  scopeOf?: () => StepScope | undefined
  scope: StepScope
  /** The account a key unknown here was found in (the index of keys). */
  foundIn?: string
  /** What Redis counted for it; kept when the step runs again. */
  counted?: CountedRequest
  /** Whether the step asked for its count (a step that did not, a 401 after all, has it taken back). */
  consumed: boolean
  /** Count it again (its count was made as of a global part that turned out older). */
  recount: boolean
  /** Its account was just shown current (a compare and set failed with what had changed): no check first. */
  checked: boolean
  resolve(value: unknown): void
  reject(error: unknown): void
}

/** What a batch of steps over one account asks for before its steps are tried again. */
type Next = 'now' | 'sync' | { busy: number }

/** Steps over one account run together (one round trip for their check, one for their changes). */
const BATCH = 64
/** Tries of a step over the whole state before it is refused (its accounts kept changing under it). */
const GLOBAL_TRIES = 50
/** How long a new store's first state may take to write (the lock held meanwhile). */
const SETUP_TTL_MS = 60_000

/** The target of `--store`: `redis://host:port/db`, or a cluster's nodes. */
function targetOf(target: string | RedisTarget): RedisTarget {
  return typeof target === 'string' ? { kind: 'redis', url: target } : target
}

/**
 * The shared store (`--store redis://...`, `--store redis-cluster://...`): several mock processes keep one state
 * in Redis, partitioned by account (docs/decisions/014-state.md). Every process keeps the whole state in memory and
 * answers from it synchronously, as with the other stores; what changes is how a step is kept:
 * - a step over one account (a v1 request: `StepScope`) runs without any store-wide lock. One script counts it
 *   in the account's windows and shows this copy of the account (and of the global part) current, else brings
 *   what changed; its changes are then set in one compare-and-set on the account's version, and on a
 *   conflict it runs again. Steps queued for one account run together (one round trip each way for all).
 * - a step over the whole state (the control plane, a scenario's use, a call's transition, anything a step
 *   over one account turns out to change beyond it) runs under the global lock, after every account was
 *   brought up to date; its changes to several parts are committed as an intent first and then carried out
 *   (again by whoever takes the lock next, should this process die between).
 * So a request admitted anywhere counts everywhere, a revocation is effective on the next request to any
 * process, one `Idempotency-Key` creates one object, and an acknowledged write is in Redis.
 */
export async function createRedisStore(
  target: string | RedisTarget,
  options: RedisStoreOptions = {},
): Promise<RedisStore> {
  const prefix = options.prefix ?? 'vak:'
  const lockTtl = options.lockTtlMs ?? 5000
  const feedLength = options.feedLength ?? 1000
  const connection: RedisConnection = await connectRedis(targetOf(target))
  const { stats, client } = connection
  const globals = globalKeys(prefix)
  const replica: Replica = { epoch: 0, global: 0, accounts: new Map(), journalRead: 0 }
  const ctx: StoreContext = {
    connection,
    prefix,
    globals,
    replica,
    processId: randomBytes(8).toString('hex'),
    journalCapacity: 1000,
    feedLength,
  }
  const journal = createJournalAppender({
    connection,
    stream: () => ({
      keys: [globals.journal(replica.epoch), globals.journalCount(replica.epoch)],
      epoch: replica.epoch,
    }),
    processId: ctx.processId,
    capacity: ctx.journalCapacity,
  })
  const gate = new StoreGate()
  const globalLock = await createGlobalLock(ctx)
  const acquire = (ttl = lockTtl, preRead?: Map<string, unknown>) => globalLock.acquire(ttl, preRead)
  const release = (lock: Lock) => globalLock.release(lock)

  let state: EngineState | undefined
  let joined = false
  let setupLock: Lock | undefined
  /** The step running now (the engine's rate limiter asks for its count). */
  let current: Job | undefined
  /** Steps over one account, by account ('': steps that read only what is global). */
  const queues = new Map<string, Job[]>()
  const pumping = new Set<string>()
  /** Counts to take back, by account: requests whose step did not use them. */
  const uncounts = new Map<string, number[]>()
  /** The window lengths an account was last counted with (for taking counts back). */
  const windowsOf = new Map<string, readonly { seconds: number; quota: number }[]>()
  const globalQueue: Job[] = []
  let globalPumping = false
  let syncing: Promise<void> | undefined

  const engine = () => state as EngineState
  const unavailable = (error: unknown) =>
    error instanceof StoreUnavailable
      ? error
      : new StoreUnavailable(`${connection.description}: ${(error as Error).message}`)

  // ---- reading the store ----

  /** Reads the store whole into this copy (after a reset, or having fallen too far behind). */
  async function readWholeInto(lock: Lock): Promise<void> {
    engine().restore(await readWhole(ctx, lock.epoch, lock.global))
  }

  /**
   * Brings everything up to date under the global lock: the global part and the journal (read with the
   * lock), every account this copy held (`preRead`: read with the lock), then the others, all at once.
   */
  async function syncEverything(lock: Lock, preRead: Map<string, unknown>): Promise<void> {
    const engineState = engine()
    const { read } = lock
    if (
      read.status === 'whole' ||
      applyGlobalEntries(ctx, engineState, lock.global, read.changes) === 'whole'
    ) {
      await readWholeInto(lock)
      return
    }
    applyJournal(ctx, engineState, read.journalCount, read.journal)
    const rest = new Set(read.accounts)
    for (const account of replica.accounts.keys()) rest.add(account)
    for (const [account, reply] of preRead)
      if (applyAccount(ctx, engineState, account, reply as Parameters<typeof applyAccount>[3]))
        rest.delete(account)
    if (rest.size > 0) await syncAccounts(ctx, engineState, [...rest])
  }

  /** The global part only (a step over one account found it newer): a new epoch is read whole, under the lock. */
  function syncGlobalSoon(): Promise<void> {
    syncing ??= (async () => {
      await gate.enterExclusive()
      try {
        if ((await syncGlobal(ctx, engine())) === 'whole') {
          const lock = await acquire()
          try {
            await readWholeInto(lock)
          } finally {
            await release(lock)
          }
        }
      } finally {
        gate.leaveExclusive()
        syncing = undefined
      }
    })()
    return syncing
  }

  // ---- steps over one account ----

  function enqueue(job: Job, route: string): void {
    let queue = queues.get(route)
    if (!queue) {
      queue = []
      queues.set(route, queue)
    }
    queue.push(job)
    // Started after the requests that arrived with this one were read too, so that they share its round trip.
    if (queue.length === 1 && !pumping.has(route)) setImmediate(() => void pump(route))
  }

  function toGlobal(job: Job): void {
    globalQueue.push(job)
    void globalPump()
  }

  /** Runs one step; answers its value and set, or undefined when it threw (undone, rejected). */
  function tryStep(job: Job): { value: unknown; set: ChangeSet } | undefined {
    const engineState = engine()
    current = job
    job.consumed = false
    try {
      const value = job.step()
      return { value, set: engineState.take() }
    } catch (error) {
      engineState.undo(engineState.take())
      takeBack(job)
      job.reject(error)
      return undefined
    } finally {
      current = undefined
    }
  }

  /** A count the step did not use (it answered 401 after all, or threw) is taken back with the next check. */
  function takeBack(job: Job): void {
    const account = job.scope.account
    if (!account || !job.counted?.admitted || job.consumed) return
    const list = uncounts.get(account) ?? []
    list.push(job.counted.second)
    uncounts.set(account, list)
    job.counted = undefined
  }

  /** Whether a step's changes stay within `route` (its account; '' for none) and its bookkeeping. */
  function staysWithin(route: string, set: ChangeSet, routed: RoutedChanges): boolean {
    if (set.reset || routed.global.length > 0) return false
    if (routed.keysAdded.length + routed.keysRemoved.length + routed.accountsAdded.length > 0) return false
    if (routed.accountsRemoved.length > 0) return false
    for (const account of routed.accounts.keys()) if (account !== route) return false
    return true
  }

  /** The check of a batch over `route`: counts what is to be counted, shows the copy current. */
  async function check(route: string, jobs: Job[]): Promise<Next | undefined> {
    if (route === '') {
      const [version] = await connection.trip(client.hget(globals.state, 'v'))
      return Number(version ?? 0) === replica.global ? undefined : 'sync'
    }
    const counting = jobs.filter((job) => (job.scope.count && !job.counted) || job.recount)
    const windows = counting[0]?.scope.count?.windows ?? windowsOf.get(route) ?? []
    if (counting.length > 0) windowsOf.set(route, windows)
    const nowSec = Math.floor(Math.max(0, ...counting.map((job) => job.scope.count?.nowMs ?? 0)) / 1000)
    const keys = keysOf(ctx, route)
    const keyList = [
      keys.state,
      keys.feed,
      keys.windows,
      ...windows.map((window) => keys.windowList(window.seconds)),
    ]
    const args: (string | number)[] = [knownVersion(ctx, route), replica.global, nowSec, windows.length]
    for (const window of windows) args.push(window.seconds, window.quota)
    const takenBack = windows.length > 0 ? (uncounts.get(route) ?? []) : []
    args.push(counting.length + takenBack.length)
    for (const job of counting)
      args.push('1', job.recount && job.counted?.admitted ? job.counted.second : '0')
    for (const second of takenBack) args.push('0', second)
    if (!connection.cluster) keyList.push(globals.state)
    args.push(connection.cluster ? '0' : '1')
    const admit = connection.script('admit', keyList, args)
    const [reply, globalVersion] = connection.cluster
      ? await connection.trip(admit, client.hget(globals.state, 'v'))
      : [(await connection.trip(admit))[0], undefined]
    const answer = reply as unknown[]
    if (answer[0] === 'ok' && takenBack.length > 0) uncounts.delete(route)
    if (answer[0] === 'ok') {
      let at = 2
      for (const job of counting) {
        const [admitted, count, second] = answer.slice(at, at + 3) as number[]
        at += 3
        job.counted = {
          admitted: admitted === 1,
          count: count as number,
          second: second as number,
          windows: windows.map((window) => {
            const [used, oldest] = answer.slice(at, at + 2) as number[]
            at += 2
            return {
              seconds: window.seconds,
              used: used as number,
              oldest: (oldest as number) < 0 ? null : (oldest as number),
            }
          }),
        }
        job.recount = false
      }
    }
    // A cluster: the global part is read beside (another slot). Newer: counted as of an older one, so again.
    if (globalVersion !== undefined && Number(globalVersion ?? 0) !== replica.global) {
      for (const job of counting) job.recount = true
      return 'sync'
    }
    if (answer[0] === 'ok') return undefined
    if (answer[0] === 'busy') return { busy: Number(answer[1]) }
    if (answer[0] === 'global') return 'sync'
    stats.retries += jobs.length
    const busy = await applyStale(ctx, engine(), route, answer)
    return busy ?? 'now'
  }

  /** One batch over `route`; answers the jobs to try again and what to do first, or undefined when done. */
  async function batch(route: string, batchJobs: Job[]): Promise<{ retry: Job[]; next: Next } | undefined> {
    const engineState = engine()
    const jobs: Job[] = []
    for (const job of batchJobs) {
      job.scope = job.scopeOf?.() ?? {}
      const { unknownKey } = job.scope
      if (unknownKey !== undefined && route === '' && job.foundIn === undefined) {
        // A key this process does not hold: another may have made it.
        const [account] = await connection.trip(client.hget(globals.keys(replica.epoch), unknownKey))
        if (account) {
          job.foundIn = account
          if (!replica.accounts.has(account)) await syncAccount(ctx, engineState, account, { clear: false })
          enqueue(job, account)
          continue
        }
      }
      const want = job.scope.account ?? job.foundIn ?? ''
      if (want !== route) enqueue(job, want)
      else jobs.push(job)
    }
    if (jobs.length === 0) return undefined
    if (!jobs.every((job) => job.checked && !job.recount && (job.counted || !job.scope.count))) {
      const next = await check(route, jobs)
      if (next) return { retry: jobs, next }
    }
    for (const job of jobs) job.checked = false
    const kept: { job: Job; value: unknown; set: ChangeSet }[] = []
    for (const job of jobs) {
      const ran = tryStep(job)
      if (!ran) continue
      if (!staysWithin(route, ran.set, routeChanges(engineState, [ran.set]))) {
        engineState.undo(ran.set)
        toGlobal(job)
        continue
      }
      kept.push({ job, ...ran })
    }
    const routed = routeChanges(
      engineState,
      kept.map(({ set }) => set),
    )
    const changes = route === '' ? [] : netChanges(routed.accounts.get(route) ?? [])
    if (changes.length > 0) {
      let answer: unknown[]
      try {
        const { args, payload } = encodeChanges(changes)
        const keys = keysOf(ctx, route)
        const [reply] = await connection.trip(
          connection.script(
            'commit',
            [keys.state, keys.records, keys.feed],
            [knownVersion(ctx, route), replica.global, feedLength, payload, '0', args.length / 2, ...args],
          ),
        )
        answer = reply as unknown[]
      } catch (error) {
        for (let i = kept.length - 1; i >= 0; i--) engineState.undo((kept[i] as (typeof kept)[number]).set)
        throw error
      }
      if (answer[0] !== 'ok') {
        for (let i = kept.length - 1; i >= 0; i--) engineState.undo((kept[i] as (typeof kept)[number]).set)
        const retry = kept.map(({ job }) => job)
        stats.retries += retry.length
        if (answer[0] === 'busy') return { retry, next: { busy: Number(answer[1]) } }
        if (answer[0] === 'global') return { retry, next: 'sync' }
        const busy = await applyStale(ctx, engineState, route, answer)
        for (const job of retry) job.checked = busy === undefined
        return { retry, next: busy ?? 'now' }
      }
      const known = replica.accounts.get(route)
      replica.accounts.set(route, { version: Number(answer[1]), counted: known?.counted ?? -1 })
    }
    journal.add(routed.journal, replica.epoch)
    for (const { job, value } of kept) {
      takeBack(job)
      job.resolve(value)
    }
    return undefined
  }

  async function pump(route: string): Promise<void> {
    if (pumping.has(route)) return
    pumping.add(route)
    let waits = 0
    try {
      for (;;) {
        const queue = queues.get(route)
        if (!queue || queue.length === 0) break
        await gate.enterShared()
        const jobs = queue.splice(0, BATCH)
        let outcome: Awaited<ReturnType<typeof batch>>
        try {
          outcome = await batch(route, jobs)
        } catch (error) {
          const failure = unavailable(error)
          for (const job of jobs) {
            takeBack(job)
            job.reject(failure)
          }
          outcome = undefined
        } finally {
          gate.leaveShared()
        }
        if (!outcome) {
          waits = 0
          continue
        }
        queue.unshift(...outcome.retry)
        const { next } = outcome
        if (next === 'sync') await syncGlobalSoon().catch(() => {})
        else if (next !== 'now') {
          // A global step marks the account: wait for it, or, past its deadline (its process died), recover.
          if (Date.now() < next.busy) await sleep(Math.min(10, 0.5 * 2 ** waits++))
          else await runGlobal(() => undefined).catch(() => {})
        }
      }
    } finally {
      pumping.delete(route)
      if ((queues.get(route)?.length ?? 0) > 0) void pump(route)
    }
  }

  // ---- steps over the whole state ----

  function runGlobal<T>(step: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      toGlobal({
        step,
        scope: {},
        consumed: false,
        recount: false,
        checked: false,
        resolve: resolve as (value: unknown) => void,
        reject,
      })
    })
  }

  async function globalPump(): Promise<void> {
    if (globalPumping) return
    globalPumping = true
    try {
      while (globalQueue.length > 0) {
        await gate.enterExclusive()
        let lock: Lock | undefined
        let jobs: Job[] = []
        try {
          const preRead = new Map<string, unknown>()
          lock = await acquire(lockTtl, preRead)
          await syncEverything(lock, preRead)
          jobs = globalQueue.splice(0)
          stats.globalSteps += jobs.length
          await globalBatch(jobs, lock)
        } catch (error) {
          const failure = unavailable(error)
          for (const job of jobs.length > 0 ? jobs : globalQueue.splice(0)) {
            takeBack(job)
            job.reject(failure)
          }
        } finally {
          gate.leaveExclusive()
          // Sent, not waited for: this connection's next command (the next lock) comes after it in Redis.
          if (lock) void release(lock)
        }
      }
    } finally {
      globalPumping = false
    }
  }

  async function globalBatch(jobs: Job[], lock: Lock): Promise<void> {
    const engineState = engine()
    for (let attempt = 0; attempt < GLOBAL_TRIES; attempt++) {
      const ran: { job: Job; value: unknown; set: ChangeSet }[] = []
      for (const job of jobs) {
        const result = tryStep(job)
        if (result) ran.push({ job, ...result })
      }
      const sets = ran.map(({ set }) => set)
      let kept: boolean
      try {
        kept = sets.some((set) => set.reset)
          ? await commitEpoch(ctx, engineState, lock, replica.epoch + 1)
          : await commitRouted(ctx, engineState, lock, routeChanges(engineState, sets))
      } catch (error) {
        for (let i = ran.length - 1; i >= 0; i--) engineState.undo((ran[i] as (typeof ran)[number]).set)
        throw error
      }
      if (kept) {
        journal.add(routeChanges(engineState, sets).journal, replica.epoch)
        for (const { job, value } of ran) {
          takeBack(job)
          job.resolve(value)
        }
        return
      }
      for (let i = ran.length - 1; i >= 0; i--) engineState.undo((ran[i] as (typeof ran)[number]).set)
      stats.retries += ran.length
      jobs = ran.map(({ job }) => job)
    }
    throw new StoreUnavailable('the accounts this step changes kept changing in other processes; retry')
  }

  return {
    description: connection.description,
    joined: () => joined,
    stats: () => ({ ...stats }),

    async load() {
      // Held through seeding and `attach`, so that two processes starting on a new store set it up once.
      const lock = await acquire(SETUP_TTL_MS)
      if (!lock.init) {
        setupLock = lock
        return undefined
      }
      joined = true
      try {
        return await readWhole(ctx, lock.epoch, lock.global)
      } finally {
        await release(lock)
      }
    },

    async attach(engineState, { fresh }) {
      state = engineState
      try {
        if (!fresh) return
        const lock = setupLock ?? (await acquire(SETUP_TTL_MS))
        setupLock = undefined
        try {
          await commitEpoch(ctx, engineState, lock, lock.epoch + 1)
        } finally {
          await release(lock)
        }
      } finally {
        // The figures count what steps cost, not setting up.
        stats.roundTrips = 0
        stats.commands = 0
      }
    },

    run<T>(step: () => T, scopeOf?: () => StepScope | undefined): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        stats.steps++
        const job: Job = {
          step,
          scopeOf,
          scope: {},
          consumed: false,
          recount: false,
          checked: false,
          resolve: resolve as (value: unknown) => void,
          reject,
        }
        const scope = state && scopeOf ? scopeOf() : undefined
        if (!scope) return toGlobal(job)
        job.scope = scope
        enqueue(job, scope.account ?? '')
      })
    },

    counted(accountId) {
      const job = current
      if (!job?.counted || job.scope.account !== accountId) return undefined
      job.consumed = true
      return job.counted
    },

    async close() {
      // What is under way finishes (a while at most: Redis may be gone), then nothing more is taken.
      const until = Date.now() + 10_000
      while ((globalPumping || pumping.size > 0 || globalQueue.length > 0) && Date.now() < until)
        await sleep(5)
      const failure = new StoreUnavailable(`${connection.description}: the store was closed`)
      for (const job of [
        ...globalQueue.splice(0),
        ...[...queues.values()].flatMap((queue) => queue.splice(0)),
      ])
        job.reject(failure)
      await Promise.race([journal.drain(), sleep(1000)])
      connection.close()
    },
  }
}

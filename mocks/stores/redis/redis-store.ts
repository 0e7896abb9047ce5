import { randomBytes } from 'node:crypto'
import type { Redis as RedisClient } from 'ioredis'
import {
  type ChangeSet,
  type StateSnapshot,
  type StoredChangeSet,
  toStored,
} from '../../engine/state/change-set.ts'
import type { EngineState } from '../../engine/state/state.ts'
import { type StateStore, StoreUnavailable } from '../../engine/state/store.ts'
import { ACQUIRE, COMMIT, RELEASE } from './redis-scripts.ts'

export interface RedisStoreOptions {
  /** Prefix of every key the store uses. Default `vak:`. */
  prefix?: string
  /** How long the lock lasts if its holder dies without letting go. Default 2 s. */
  lockTtlMs?: number
  /** Change sets kept in the feed for processes that fall behind (older ones need a full reload). 100,000. */
  feedLength?: number
}

/** A Redis store as the CLI reports it. */
export interface RedisStore extends StateStore {
  /** Whether another process had already set the store up (this one joined it). */
  joined(): boolean
}

/** Redis is not installed (an optional peer), or cannot be reached. */
export class RedisUnavailable extends Error {}

interface Job<T> {
  step: () => T
  resolve: (value: T) => void
  reject: (error: unknown) => void
}

type FeedEntry = [id: string, fields: string[]]

/** Chunks of at most this many changes per script call when a whole state is written. */
const CHUNK = 5000

async function connect(url: string): Promise<RedisClient> {
  let Redis: typeof import('ioredis').Redis
  try {
    ;({ Redis } = await import('ioredis'))
  } catch {
    throw new RedisUnavailable(
      "--store redis:// needs ioredis, an optional peer of voice-api-kit: run 'npm install --save-dev ioredis@5' and try again.",
    )
  }
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, connectTimeout: 5000 })
  client.on('error', () => {
    // Reported by the command that fails; a reconnect follows.
  })
  try {
    await client.connect()
  } catch (error) {
    client.disconnect()
    throw new RedisUnavailable(`Cannot reach ${url}: ${(error as Error).message}`)
  }
  return client
}

/** Arguments of one change set for COMMIT. */
function setArgs(set: StoredChangeSet, payload: boolean): string[] {
  const args = [payload ? JSON.stringify(set) : '', set.reset ? '1' : '0', String(set.changes.length)]
  for (const change of set.changes)
    args.push(change.table, change.key, change.value === null ? '' : JSON.stringify(change.value))
  return args
}

/**
 * The shared store (`--store redis://host:port/db`): several mock processes keep one state in Redis. Every
 * process keeps the whole state in memory and answers from it synchronously, as with the other stores; a step
 * runs while its process holds the store's lock, after every change set published since its last step was
 * applied, and its own change set is published (to the table hashes and the feed, atomically) before its
 * answer. Steps queued in one process while it waits run together under one lock (group commit). So a request
 * admitted anywhere counts everywhere, a revocation is effective on the next request to any process, one
 * `Idempotency-Key` creates one object, and an acknowledged write is in Redis (durable as Redis is configured).
 */
export async function createRedisStore(url: string, options: RedisStoreOptions = {}): Promise<RedisStore> {
  const prefix = options.prefix ?? 'vak:'
  const lockTtl = options.lockTtlMs ?? 2000
  const feedLength = String(options.feedLength ?? 100_000)
  const client = await connect(url)
  const keys = {
    lock: `${prefix}lock`,
    feed: `${prefix}feed`,
    seq: `${prefix}seq`,
    tables: `${prefix}tables`,
    initialized: `${prefix}initialized`,
    released: `${prefix}released`,
  }
  // The scripts, sent once and then run by their digest (EVALSHA).
  client.defineCommand('vakAcquire', { numberOfKeys: 2, lua: ACQUIRE })
  client.defineCommand('vakCommit', { numberOfKeys: 6, lua: COMMIT })
  client.defineCommand('vakRelease', { numberOfKeys: 2, lua: RELEASE })
  const run = client as unknown as Record<
    'vakAcquire' | 'vakCommit' | 'vakRelease',
    (...args: string[]) => Promise<unknown>
  >
  // A second connection hears when the lock is let go, so that a waiting process tries again at once.
  const listener = client.duplicate()
  listener.on('error', () => {
    // Waiting falls back to polling; the main connection reports failures.
  })
  let wake: (() => void) | undefined
  await listener.subscribe(keys.released).catch(() => {})
  listener.on('message', () => wake?.())
  const description = `Redis ${new URL(url).host}${new URL(url).pathname || '/0'}`
  let state: EngineState | undefined
  let token = ''
  let lastId = '0-0'
  let lastSeq = 0
  let joined = false
  const queue: Job<unknown>[] = []
  let pumping = false

  async function acquire(ttl = lockTtl): Promise<[string, FeedEntry[]]> {
    token = randomBytes(16).toString('hex')
    for (let attempt = 0; ; attempt++) {
      const taken = (await run.vakAcquire(keys.lock, keys.feed, token, String(ttl), lastId)) as
        | [string, FeedEntry[]]
        | null
      if (taken) return taken
      // Someone else holds it: try again when it is let go (or, should that message be missed, a little later
      // each time, with jitter, up to 20 ms).
      const wait = Math.min(20, 0.5 * 1.5 ** Math.min(attempt, 12)) * (0.5 + Math.random())
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait)
        wake = () => {
          clearTimeout(timer)
          wake = undefined
          resolve()
        }
      })
    }
  }

  async function release(): Promise<void> {
    await run.vakRelease(keys.lock, keys.released, token).catch(() => {})
  }

  async function commit(sets: StoredChangeSet[], releaseLock: boolean, payload = true): Promise<string[]> {
    const args: string[] = [token, prefix, feedLength, releaseLock ? '1' : '0', String(sets.length)]
    for (const set of sets) args.push(...setArgs(set, payload))
    const k = [keys.lock, keys.feed, keys.seq, keys.tables, keys.initialized, keys.released]
    return (await run.vakCommit(...k, ...args)) as string[]
  }

  /** Every table, read whole (at start, or after falling behind the feed's oldest set). */
  async function readAll(): Promise<StateSnapshot> {
    const names = await client.smembers(keys.tables)
    const snapshot: StateSnapshot = { version: 2, tables: {} }
    for (const name of names) {
      const records = await client.hgetall(`${prefix}t:${name}`)
      snapshot.tables[name] = Object.entries(records).map(([key, value]) => [key, JSON.parse(value)])
    }
    lastSeq = Number((await client.get(keys.seq)) ?? 0)
    const newest = (await client.xrevrange(keys.feed, '+', '-', 'COUNT', 1)) as FeedEntry[]
    lastId = newest[0]?.[0] ?? '0-0'
    return snapshot
  }

  /** Applies the sets other processes published, or reloads everything when some were trimmed away. */
  async function catchUp(entries: FeedEntry[]): Promise<void> {
    if (!state) return
    const sets: StoredChangeSet[] = []
    for (const [id, fields] of entries) {
      const n = Number(fields[fields.indexOf('n') + 1])
      if (n !== lastSeq + 1) {
        state.restore(await readAll())
        return
      }
      sets.push(JSON.parse(fields[fields.indexOf('s') + 1] ?? '{}') as StoredChangeSet)
      lastSeq = n
      lastId = id
    }
    state.apply(sets)
  }

  async function pump(): Promise<void> {
    if (pumping) return
    pumping = true
    try {
      while (queue.length > 0 && state) {
        const engineState = state
        let entries: FeedEntry[]
        try {
          ;[, entries] = await acquire()
          await catchUp(entries)
        } catch (error) {
          await release()
          const failure = new StoreUnavailable(`${description}: ${(error as Error).message}`)
          for (const job of queue.splice(0)) job.reject(failure)
          continue
        }
        const jobs = queue.splice(0)
        const taken: { job: Job<unknown>; value: unknown; set: ChangeSet }[] = []
        for (const job of jobs) {
          try {
            const value = job.step()
            taken.push({ job, value, set: engineState.take() })
          } catch (error) {
            engineState.undo(engineState.take())
            job.reject(error)
          }
        }
        const published = taken.filter(({ set }) => set.changes.length > 0 || set.reset)
        try {
          if (published.length === 0) await release()
          else {
            const ids = await commit(
              published.map(({ set }) => toStored(set)),
              true,
            )
            lastSeq += ids.length
            lastId = ids.at(-1) ?? lastId
          }
        } catch (error) {
          for (let i = taken.length - 1; i >= 0; i--) engineState.undo(taken[i]?.set as ChangeSet)
          await release()
          const failure = new StoreUnavailable(`${description}: ${(error as Error).message}`)
          for (const { job } of taken) job.reject(failure)
          continue
        }
        for (const { job, value } of taken) job.resolve(value)
      }
    } finally {
      pumping = false
    }
  }

  return {
    description,
    joined: () => joined,

    async load() {
      // Held through seeding and `attach`, so that two processes starting on a new store set it up once.
      await acquire(60_000)
      if ((await client.get(keys.initialized)) === '1') {
        joined = true
        const snapshot = await readAll()
        await release()
        return snapshot
      }
      return undefined
    },

    async attach(engineState, { fresh }) {
      state = engineState
      if (!fresh) return
      const records = Object.entries(engineState.snapshot().tables).flatMap(([table, list]) =>
        list.map(([key, value]) => ({ table, key, value })),
      )
      const chunks: StoredChangeSet[] = []
      for (let i = 0; i < records.length; i += CHUNK)
        chunks.push({ changes: records.slice(i, i + CHUNK), ...(i === 0 ? { reset: true } : {}) })
      for (const [i, chunk] of chunks.entries()) await commit([chunk], i === chunks.length - 1, false)
      if (chunks.length === 0) await commit([{ changes: [], reset: true }], true, false)
    },

    run<T>(step: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ step, resolve, reject } as Job<unknown>)
        void pump()
      })
    },

    async close() {
      while (pumping || queue.length > 0) await new Promise((resolve) => setTimeout(resolve, 5))
      listener.disconnect()
      client.disconnect()
    },
  }
}

import type { Cluster, Redis } from 'ioredis'
import * as scripts from './redis-scripts.ts'

/** Where the shared store is: one Redis, or a Redis Cluster reached through any of its nodes. */
export type RedisTarget =
  | { kind: 'redis'; url: string }
  | { kind: 'cluster'; nodes: { host: string; port: number }[] }

/** Redis is not installed (an optional peer), or cannot be reached. */
export class RedisUnavailable extends Error {}

/** What the store sent to Redis, for the figures of `docs/state.md` and the bench. */
export interface RedisStoreStats {
  /** Steps run (requests, ticks, deliveries' bookkeeping). */
  steps: number
  /** Round trips made for steps (a batch's shared by its steps: commands sent together count once). */
  roundTrips: number
  /** Commands sent in them. */
  commands: number
  /** Commands that appended the journal, in the background (batched, not waited for by any answer). */
  journalCommands: number
  /** Steps run again because their account (or the global part) changed meanwhile in another process. */
  retries: number
  /** Steps run over the whole state, under the global lock (control plane, scenarios' uses, calls). */
  globalSteps: number
}

type ScriptName =
  | 'admit'
  | 'commit'
  | 'prepare'
  | 'unprepare'
  | 'apply'
  | 'readAccount'
  | 'readGlobal'
  | 'acquire'
  | 'commitGlobal'
  | 'finishGlobal'
  | 'switchEpoch'
  | 'release'
  | 'journal'

const LUA: Record<ScriptName, string> = {
  admit: scripts.ADMIT,
  commit: scripts.COMMIT,
  prepare: scripts.PREPARE,
  unprepare: scripts.UNPREPARE,
  apply: scripts.APPLY,
  readAccount: scripts.READ_ACCOUNT,
  readGlobal: scripts.READ_GLOBAL,
  acquire: scripts.ACQUIRE,
  commitGlobal: scripts.COMMIT_GLOBAL,
  finishGlobal: scripts.FINISH_GLOBAL,
  switchEpoch: scripts.SWITCH_EPOCH,
  release: scripts.RELEASE,
  journal: scripts.JOURNAL,
}

export interface RedisConnection {
  readonly cluster: boolean
  readonly description: string
  readonly client: Redis | Cluster
  readonly stats: RedisStoreStats
  /** Runs a script (EVALSHA; the script is sent once per connection). */
  script(name: ScriptName, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>
  /** Awaits commands sent together, counted as one round trip of the step path. */
  trip<T extends readonly unknown[]>(...commands: { [K in keyof T]: Promise<T[K]> }): Promise<T>
  /** Calls `onMessage` when `channel` is told something (a second connection listens). */
  listen(channel: string, onMessage: () => void): Promise<void>
  close(): void
}

async function loadIoredis(): Promise<{ Redis: typeof Redis; Cluster: typeof Cluster }> {
  try {
    const { Redis, Cluster } = await import('ioredis')
    return { Redis, Cluster }
  } catch {
    throw new RedisUnavailable(
      "--store redis:// needs ioredis, an optional peer of voice-api-kit: run 'npm install --save-dev ioredis@5' and try again.",
    )
  }
}

/** Connects to one Redis or to a cluster, with the store's scripts defined. */
export async function connectRedis(target: RedisTarget): Promise<RedisConnection> {
  const { Redis, Cluster } = await loadIoredis()
  const redisOptions = { maxRetriesPerRequest: 2, connectTimeout: 5000 }
  const description =
    target.kind === 'redis'
      ? `Redis ${new URL(target.url).host}${new URL(target.url).pathname || '/0'}`
      : `Redis Cluster ${target.nodes.map((node) => `${node.host}:${node.port}`).join(',')}`
  const client: Redis | Cluster =
    target.kind === 'redis'
      ? new Redis(target.url, { ...redisOptions, lazyConnect: true })
      : new Cluster(target.nodes, {
          lazyConnect: true,
          redisOptions,
          // Connected before the first step: a command while the cluster is unreachable fails (503) at once.
          enableOfflineQueue: false,
          clusterRetryStrategy: (times) => Math.min(100 * times, 2000),
        })
  client.on('error', () => {
    // Reported by the command that fails; a reconnect follows.
  })
  let clusterNode = false
  try {
    await client.connect()
    if (target.kind === 'cluster') await client.ping()
    else clusterNode = /cluster_enabled:1/.test(await client.info('cluster'))
  } catch (error) {
    client.disconnect()
    const where = target.kind === 'redis' ? target.url : description
    throw new RedisUnavailable(`Cannot reach ${where}: ${(error as Error).message}`)
  }
  if (clusterNode) {
    client.disconnect()
    throw new RedisUnavailable(
      `${description} is a node of a Redis Cluster: use --store redis-cluster://${new URL((target as { url: string }).url).host}[,<other nodes>].`,
    )
  }
  for (const [name, lua] of Object.entries(LUA)) client.defineCommand(`vak_${name}`, { lua })
  const commands = client as unknown as Record<string, (...args: (string | number)[]) => Promise<unknown>>
  const stats: RedisStoreStats = {
    steps: 0,
    roundTrips: 0,
    commands: 0,
    journalCommands: 0,
    retries: 0,
    globalSteps: 0,
  }
  let listener: Redis | Cluster | undefined

  return {
    cluster: target.kind === 'cluster',
    description,
    client,
    stats,
    script(name, keys, args) {
      const run = commands[`vak_${name}`] as (...args: (string | number)[]) => Promise<unknown>
      return run.call(client, keys.length, ...keys, ...args)
    },
    async trip(...sent) {
      stats.roundTrips++
      stats.commands += sent.length
      return (await Promise.all(sent)) as never
    },
    async listen(channel, onMessage) {
      listener ??= client.duplicate()
      listener.on('error', () => {
        // Waiting falls back to polling; the main connection reports failures.
      })
      listener.on('message', onMessage)
      await listener.subscribe(channel).catch(() => {})
    },
    close() {
      listener?.disconnect()
      client.disconnect()
    },
  }
}

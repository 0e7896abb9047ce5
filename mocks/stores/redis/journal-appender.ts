import type { RedisConnection } from './redis-connection.ts'

/** Entries per append: one command carries them all. */
const BATCH = 256

/**
 * The journal of the shared store: entries appended to a Redis list (the newest `capacity` kept, and counted) in
 * the background, many per command, never on an answer's path. The journal is bookkeeping (soft): an entry lost
 * with a process that dies before its append loses nothing a client was told had happened.
 */
export function createJournalAppender(options: {
  connection: RedisConnection
  /** The list and count of the store's current epoch (entries of an earlier epoch are dropped). */
  stream: () => { keys: [list: string, count: string]; epoch: number }
  processId: string
  capacity: number
}) {
  const { connection } = options
  let queue: { epoch: number; json: string }[] = []
  let flushing: Promise<void> | undefined

  async function flush(): Promise<void> {
    while (queue.length > 0) {
      const { keys, epoch } = options.stream()
      const batch = queue.slice(0, BATCH).filter((entry) => entry.epoch === epoch)
      queue = queue.slice(BATCH)
      if (batch.length === 0) continue
      connection.stats.journalCommands++
      await connection
        .script('journal', keys, [
          options.capacity,
          ...batch.map((entry) => `${options.processId} ${entry.json}`),
        ])
        .catch(() => {
          // Soft: dropped when Redis cannot take it.
        })
    }
  }

  function kick(): void {
    if (flushing) return
    flushing = flush().finally(() => {
      flushing = undefined
      if (queue.length > 0) kick()
    })
  }

  return {
    /** Queues entries recorded at `epoch` and starts appending them. */
    add(entries: readonly unknown[], epoch: number): void {
      if (entries.length === 0) return
      for (const entry of entries) queue.push({ epoch, json: JSON.stringify(entry) })
      kick()
    },
    /** Resolves once every queued entry was sent. */
    async drain(): Promise<void> {
      while (flushing) await flushing
    },
  }
}

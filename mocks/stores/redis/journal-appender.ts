import type { RedisConnection } from './redis-connection.ts'

/** Entries per append: one command carries them all. */
const BATCH = 256
/** How long entries wait for others to share their append (each command is a write to a socket). */
const LINGER_MS = 100

/**
 * The journal of the shared store: entries appended to a Redis list (the newest `capacity` kept, and counted) in
 * the background, many per command (within 100 ms), never on an answer's path. The journal is bookkeeping (soft): an entry lost
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
  let timer: ReturnType<typeof setTimeout> | undefined

  /** Sends what is queued now (entries queued meanwhile wait for the next append). */
  async function flush(): Promise<void> {
    let taken = queue
    queue = []
    while (taken.length > 0) {
      const { keys, epoch } = options.stream()
      const batch = taken.slice(0, BATCH).filter((entry) => entry.epoch === epoch)
      taken = taken.slice(BATCH)
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
    if (timer) clearTimeout(timer)
    timer = undefined
    if (flushing) return
    flushing = flush().finally(() => {
      flushing = undefined
      if (queue.length >= BATCH) kick()
      else if (queue.length > 0) later()
    })
  }

  /** Appends within `LINGER_MS`, or at once when a command's worth is waiting. */
  function later(): void {
    if (queue.length >= BATCH) {
      kick()
      return
    }
    if (timer || flushing) return
    timer = setTimeout(kick, LINGER_MS)
    timer.unref()
  }

  return {
    /** Queues entries recorded at `epoch` and starts appending them. */
    add(entries: readonly unknown[], epoch: number): void {
      if (entries.length === 0) return
      for (const entry of entries) queue.push({ epoch, json: JSON.stringify(entry) })
      later()
    },
    /** Resolves once every queued entry was sent. */
    async drain(): Promise<void> {
      if (queue.length > 0) kick()
      while (flushing) await flushing
    },
  }
}

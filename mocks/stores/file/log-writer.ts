import { constants } from 'node:fs'
import { type FileHandle, open, rename } from 'node:fs/promises'

/** A record waiting to be written: its line, and what to do when it is durable or cannot be made so. */
interface Pending {
  line: string
  resolve: () => void
  reject: (error: Error) => void
  /** Undoes what the record changed (it could not be made durable). */
  undo: () => void
}

export interface LogWriterOptions {
  /** Bytes of whole records already in the file (anything after them is cut off first). */
  size: number
  /** Longest time a record that need not be durable at once waits to be written. Default 1 s. */
  softDelayMs?: number
  /** Told after each batch made durable (the store may compact then). */
  onFlushed?: () => void
}

const APPEND = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | (constants.O_NOFOLLOW ?? 0)

/**
 * The append-only log of a file store, with group commit: records appended while a write and its fsync are in
 * flight are written together by the next one. A durable record's `append` resolves once the fsync that covers
 * it returns; a soft record's resolves at once and is written with the next durable one, or after
 * `softDelayMs`. When a write or fsync fails, the file is cut back to its last durable size, every record not
 * yet durable is undone (newest first) and their `append`s reject. Writes, fsyncs and rotations run one at a
 * time, in order.
 */
export async function openLogWriter(path: string, options: LogWriterOptions) {
  let file: FileHandle = await open(path, APPEND, 0o600)
  await file.truncate(options.size)
  let size = options.size
  let queue: Pending[] = []
  let chain: Promise<void> = Promise.resolve()
  let flushQueued = false
  let softTimer: ReturnType<typeof setTimeout> | undefined
  let closed = false

  /** Runs jobs one after the other, whatever happened to the one before. */
  function serially(job: () => Promise<void>): Promise<void> {
    chain = chain.then(job, job)
    return chain
  }

  async function writeBatch(batch: Pending[]): Promise<void> {
    const text = batch.map((pending) => pending.line).join('')
    try {
      await file.write(text)
      await file.datasync()
      size += Buffer.byteLength(text)
    } catch (error) {
      // Nothing after the last durable byte may survive: a later start would replay it.
      await file.truncate(size).catch(() => {})
      const lost = [...batch, ...queue]
      queue = []
      for (let i = lost.length - 1; i >= 0; i--) lost[i]?.undo()
      const failure = error instanceof Error ? error : new Error(String(error))
      for (const pending of lost) pending.reject(failure)
      return
    }
    for (const pending of batch) pending.resolve()
    options.onFlushed?.()
  }

  function flush(): Promise<void> {
    if (softTimer !== undefined) {
      clearTimeout(softTimer)
      softTimer = undefined
    }
    if (flushQueued) return chain
    flushQueued = true
    return serially(async () => {
      // Records appended in this turn of the event loop join the batch.
      await new Promise((resolve) => setImmediate(resolve))
      flushQueued = false
      const batch = queue
      queue = []
      if (batch.length > 0) await writeBatch(batch)
    })
  }

  return {
    /**
     * Appends a record; resolves when it is durable (at once for a soft one). `undo` is called, newest record
     * first, if it cannot be made durable.
     */
    append(line: string, durable: boolean, undo: () => void): Promise<void> {
      if (closed) return Promise.reject(new Error('the store is closed'))
      return new Promise<void>((resolve, reject) => {
        const ignore = () => {}
        queue.push({ line, undo, resolve: durable ? resolve : ignore, reject: durable ? reject : ignore })
        if (!durable) resolve()
        if (durable) flush()
        else softTimer ??= setTimeout(flush, options.softDelayMs ?? 1000)
      })
    },
    /** Writes whatever is waiting; resolves once it is durable (or lost). */
    flush: () => (queue.length > 0 ? flush() : chain),
    /** Whether records are waiting to be written (or being written). */
    busy: () => queue.length > 0 || flushQueued,
    size: () => size,
    /**
     * After the writes already asked for: closes the file, renames it to `to`, and goes on in a new, empty file
     * at the same path (a compaction keeps the old records until its snapshot is durable).
     */
    rotate(to: string): Promise<void> {
      return serially(async () => {
        await file.close()
        await rename(path, to)
        file = await open(path, APPEND, 0o600)
        size = 0
      })
    },
    async close(): Promise<void> {
      await flush()
      closed = true
      await serially(() => file.close())
    },
  }
}

export type LogWriter = Awaited<ReturnType<typeof openLogWriter>>

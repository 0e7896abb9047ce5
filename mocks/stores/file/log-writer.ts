import { constants } from 'node:fs'
import { type FileHandle, open, rename } from 'node:fs/promises'
import { writeWhole } from '../../server/write-whole.ts'

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
  /** Opens the log for appending (a test gives a handle that fails its own way). Default: `fs.open`. */
  openFile?: (path: string) => Promise<LogFile>
}

/** What the writer needs of an open file. */
export type LogFile = Pick<FileHandle, 'write' | 'datasync' | 'truncate' | 'close'>

const APPEND = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | (constants.O_NOFOLLOW ?? 0)

const openForAppend = (path: string): Promise<LogFile> => open(path, APPEND, 0o600)

/**
 * The append-only log of a file store, with group commit: records appended while a write and its fsync are in
 * flight are written together by the next one. A durable record's `append` resolves once the fsync that covers
 * it returns; a soft record's resolves at once and is written with the next durable one, or after
 * `softDelayMs`. A batch is durable only once every byte of it is written (a short write is finished) and
 * fsynced. When a write or fsync fails, the file is cut back to its last durable size (before anything else is
 * written, if the cut fails at first), every record not yet durable is undone (newest first) and their
 * `append`s reject. Writes, fsyncs and rotations run one at a time, in order.
 */
export async function openLogWriter(path: string, options: LogWriterOptions) {
  const openFile = options.openFile ?? openForAppend
  let file: LogFile = await openFile(path)
  await file.truncate(options.size)
  let size = options.size
  /** Bytes may follow the last durable one (a batch failed and the file could not yet be cut back). */
  let dirty = false
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

  /**
   * Cuts the file back to its last durable byte (and makes the cut durable), when a failed batch may have left
   * a piece of a record after it: nothing may be appended after such a piece, and a later start must not read it.
   */
  async function cutBack(): Promise<void> {
    if (!dirty) return
    await file.truncate(size)
    await file.datasync()
    dirty = false
  }

  async function writeBatch(batch: Pending[]): Promise<void> {
    const bytes = Buffer.from(batch.map((pending) => pending.line).join(''))
    try {
      await cutBack()
      dirty = true
      await writeWhole(file, bytes)
      await file.datasync()
      size += bytes.length
      dirty = false
    } catch (error) {
      // Nothing after the last durable byte may survive: a later start would replay it. If the cut fails too,
      // the next batch tries it again before writing, and fails (503) while it cannot be made.
      await cutBack().catch(() => {})
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
        await cutBack()
        await file.close()
        await rename(path, to)
        file = await openFile(path)
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

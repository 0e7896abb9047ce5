import { existsSync, mkdirSync, unlinkSync } from 'node:fs'
import { unlink } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import type { ChangeSet, StateSnapshot } from '../../engine/state/change-set.ts'
import type { EngineState } from '../../engine/state/state.ts'
import { type StateStore, StoreUnavailable } from '../../engine/state/store.ts'
import { removeStaleTemporaries, writeFileAtomically } from '../../server/write-file-atomically.ts'
import { encodeLine } from './line-codec.ts'
import { type LogWriter, openLogWriter } from './log-writer.ts'
import { acquireOwnerLock, StoreLocked } from './owner-lock.ts'
import { type LoadedState, readStateFiles, type SnapshotHeader, stateFiles } from './state-files.ts'

export interface FileStoreOptions {
  /** Longest time bookkeeping (rate-limit windows, last-used times, the journal) waits to be written. 1 s. */
  softDelayMs?: number
  /** The log is compacted into a new snapshot once it passes this size and twice the snapshot's. 64 MiB. */
  compactAtBytes?: number
}

/** A file store as the CLI reports it at start. */
export interface FileStore extends StateStore {
  /** What loading found: a torn record dropped from the end of the log, a file of an earlier version. */
  readonly loaded: () => LoadedState | undefined
  /** Snapshots written since start (compactions and the first one). */
  readonly snapshots: () => number
}

/** Lines of a snapshot, about a megabyte at a time, letting the event loop run between pieces. */
async function* snapshotLines(snapshot: StateSnapshot, seq: number): AsyncGenerator<string> {
  const header: SnapshotHeader = { format: 'voice-api-kit/state', version: 2, seq }
  let piece = encodeLine(header)
  for (const [table, records] of Object.entries(snapshot.tables)) {
    for (const [key, value] of records) {
      piece += encodeLine([table, key, value])
      if (piece.length > 1 << 20) {
        yield piece
        piece = ''
        await new Promise((resolve) => setImmediate(resolve))
      }
    }
  }
  yield piece
}

function describeFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOTDIR' || code === 'EEXIST') return 'a file is in the way'
  if (code === 'EACCES' || code === 'EPERM') return 'it is not writable here'
  if (code === 'ENOSPC') return 'the disk is full'
  if (code === 'EDQUOT') return 'the disk quota is used up'
  if (code === 'EROFS') return 'the file system is read-only'
  if (code === 'EIO') return 'an I/O error'
  return error instanceof Error ? error.message : String(error)
}

/** Creates the folder of a store's files when it is missing (owner only: the state holds signing secrets). */
function makeFolder(path: string, description: string): void {
  const folder = dirname(resolve(path))
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 })
  } catch (error) {
    throw new Error(`${description}: cannot create its folder ${folder}: ${describeFailure(error)}.`)
  }
}

/**
 * The embedded durable store (`--state-file <path>` or `--store file:<path>`): a snapshot at `<path>` and an
 * append-only log of change sets at `<path>.log`, each line checksummed. A change set is appended and fsynced
 * before its request is answered (group commit: sets arriving during an fsync share the next one), so a write
 * costs in proportion to what it changed. Bookkeeping (windows, last-used times, the journal) is written with
 * the next durable set or within `softDelayMs`. The log is compacted into a new snapshot, written beside the
 * old one and renamed over it, once it grows past `compactAtBytes`. One process owns a store (`<path>.lock`).
 * A missing folder is created (mode 700).
 * A set that cannot be made durable (disk full, I/O error) is undone and its request answered 503.
 */
export function createFileStore(path: string, options: FileStoreOptions = {}): FileStore {
  const files = stateFiles(path)
  const description = `state file ${path}`
  const compactAt = options.compactAtBytes ?? 64 * 1024 * 1024
  let lock: { release(): void } | undefined
  let loaded: LoadedState | undefined
  let writer: LogWriter | undefined
  let state: EngineState | undefined
  let seq = 0
  let snapshotBytes = 0
  let snapshots = 0
  let compacting = false

  async function writeSnapshot(snapshot: StateSnapshot, atSeq: number): Promise<void> {
    let bytes = 0
    const counted = async function* () {
      for await (const piece of snapshotLines(snapshot, atSeq)) {
        bytes += Buffer.byteLength(piece)
        yield piece
      }
    }
    await writeFileAtomically(files.snapshot, counted())
    snapshotBytes = bytes
    snapshots++
  }

  /** After a flush with nothing waiting: a snapshot of the state now, then the log starts afresh. */
  function maybeCompact(): void {
    if (compacting || !writer || !state || writer.busy()) return
    if (writer.size() < Math.max(compactAt, 2 * snapshotBytes) || existsSync(files.oldLog)) return
    compacting = true
    const snapshot = state.snapshot()
    const atSeq = seq
    const log = writer
    void (async () => {
      try {
        await log.rotate(files.oldLog)
        await writeSnapshot(snapshot, atSeq)
        await unlink(files.oldLog)
      } catch {
        // The old snapshot and both logs still hold everything; the next compaction tries again.
      } finally {
        compacting = false
      }
    })()
  }

  return {
    description,
    loaded: () => loaded,
    snapshots: () => snapshots,

    async load() {
      makeFolder(path, description)
      removeStaleTemporaries(files.snapshot)
      try {
        lock = acquireOwnerLock(files.lock, description)
      } catch (error) {
        if (error instanceof StoreLocked || !(error as NodeJS.ErrnoException).code) throw error
        throw new Error(
          `${description}: cannot create its lock file ${files.lock}: ${describeFailure(error)}.`,
        )
      }
      try {
        loaded = readStateFiles(path)
      } catch (error) {
        lock.release()
        throw error
      }
      return loaded?.snapshot
    },

    async attach(engineState, { fresh }) {
      state = engineState
      seq = loaded?.seq ?? 0
      const startOver = fresh || loaded?.legacy === true
      if (startOver) {
        // The first snapshot (or one of this version for an earlier version's file); no log before it.
        await writeSnapshot(engineState.snapshot(), seq)
        for (const log of [files.log, files.oldLog]) if (existsSync(log)) unlinkSync(log)
      }
      writer = await openLogWriter(files.log, {
        size: startOver ? 0 : (loaded?.logBytes ?? 0),
        softDelayMs: options.softDelayMs,
        onFlushed: maybeCompact,
      })
    },

    async run(step) {
      const engineState = state
      const log = writer
      if (!engineState || !log) throw new Error(`${description} is not open.`)
      let value: ReturnType<typeof step>
      try {
        value = step()
      } catch (error) {
        engineState.undo(engineState.take())
        throw error
      }
      const set: ChangeSet = engineState.take()
      if (set.changes.length === 0 && !set.reset) return value
      const record = {
        seq: ++seq,
        changes: set.changes.map((change) => [change.table, change.key, change.value]),
        ...(set.reset ? { reset: true } : {}),
      }
      // A record that cannot be made durable is undone, newest first, with every later one: the next record
      // takes its number, so that the log's numbers follow each other without a gap.
      const lost = () => {
        engineState.undo(set)
        seq = Math.min(seq, record.seq - 1)
      }
      try {
        await log.append(encodeLine(record), set.durable, lost)
      } catch (error) {
        throw new StoreUnavailable(describeFailure(error))
      }
      return value
    },

    async close() {
      try {
        await writer?.close()
      } finally {
        lock?.release()
      }
    },
  }
}

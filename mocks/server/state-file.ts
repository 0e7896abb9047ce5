import { readdirSync, readFileSync, unlinkSync } from 'node:fs'
import { open, rename } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { EngineSnapshot } from '../engine/create-engine.ts'

interface Batch {
  take: () => EngineSnapshot
  waiters: (() => void)[]
  failures: ((error: unknown) => void)[]
}

/** Whether a process with this id is running (a temporary file it owns must be left alone). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Removes temporary files left by a process killed in the middle of a write. */
function removeStaleTemporaries(path: string): void {
  const prefix = `${basename(path)}.`
  let names: string[]
  try {
    names = readdirSync(dirname(path))
  } catch {
    return
  }
  for (const name of names) {
    const pid = name.startsWith(prefix) ? /^(\d+)\.tmp$/.exec(name.slice(prefix.length))?.[1] : undefined
    if (pid === undefined || Number(pid) === process.pid || running(Number(pid))) continue
    try {
      unlinkSync(join(dirname(path), name))
    } catch {
      // Already gone.
    }
  }
}

/** Writes the whole state to a temporary file, fsyncs it, renames it over the file, fsyncs the folder. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`
  const file = await open(temporary, 'w', 0o600)
  try {
    await file.writeFile(text)
    await file.sync()
  } finally {
    await file.close()
  }
  await rename(temporary, path)
  try {
    const folder = await open(dirname(path), 'r')
    try {
      await folder.sync()
    } finally {
      await folder.close()
    }
  } catch {
    // Some file systems cannot fsync a folder; the rename is still atomic.
  }
}

/**
 * The mock's state on disk: written whole with write-then-rename and fsync (file and folder), so the
 * file is always either the previous state or the new one, and durable before a response is sent.
 * Saves requested while a write is in flight are coalesced into the next write (group commit): each
 * `save()` resolves after a write whose snapshot was taken after it was called.
 */
export function createStateFile(path: string) {
  let inFlight: Promise<void> | undefined
  let pending: Batch | undefined
  let writes = 0

  async function drain(): Promise<void> {
    while (pending) {
      const batch = pending
      // Let the requests of this turn of the event loop join the batch before taking the snapshot.
      await new Promise((resolve) => setImmediate(resolve))
      pending = undefined
      try {
        await writeAtomically(path, JSON.stringify(batch.take()))
        writes++
        for (const resolve of batch.waiters) resolve()
      } catch (error) {
        for (const reject of batch.failures) reject(error)
      }
    }
    inFlight = undefined
  }

  return {
    path,
    /** How many whole-state writes completed (for measurements). */
    writes: () => writes,
    /** The saved state, or undefined when there is no file yet. Throws a readable error for a corrupt file. */
    load(): EngineSnapshot | undefined {
      removeStaleTemporaries(path)
      let text: string
      try {
        text = readFileSync(path, 'utf8')
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
        throw new Error(`Cannot read the state file ${path}: ${(error as Error).message}`)
      }
      try {
        const state = JSON.parse(text) as EngineSnapshot
        if (state.version !== 1) throw new Error(`unsupported version ${String(state.version)}`)
        return state
      } catch (error) {
        throw new Error(
          `The state file ${path} is not a state file of this mock (${(error as Error).message}).`,
        )
      }
    },
    /** Saves the state taken by `take()` (called at write time, so one write covers every change before it). */
    save(take: () => EngineSnapshot): Promise<void> {
      return new Promise((resolve, reject) => {
        if (!pending) pending = { take, waiters: [], failures: [] }
        pending.take = take
        pending.waiters.push(resolve)
        pending.failures.push(reject)
        if (!inFlight) inFlight = drain()
      })
    },
  }
}

export type StateFile = ReturnType<typeof createStateFile>

import { readFileSync } from 'node:fs'
import type { EngineSnapshot } from '../engine/create-engine.ts'
import { removeStaleTemporaries, writeFileAtomically } from './write-file-atomically.ts'

interface Batch {
  take: () => EngineSnapshot
  waiters: (() => void)[]
  failures: ((error: unknown) => void)[]
}

/**
 * The mock's state on disk: written whole with `writeFileAtomically` (an exclusive, unpredictable,
 * owner-only temporary, fsync, rename, fsync of the folder), so the file is always either the previous
 * state or the new one, and durable before a response is sent.
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
        await writeFileAtomically(path, JSON.stringify(batch.take()))
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

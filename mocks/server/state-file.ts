import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { EngineSnapshot } from '../engine/create-engine.ts'

/**
 * The mock's state on disk: written whole with write-then-rename and fsync (file and folder), so the
 * file is always either the previous state or the new one, and durable before a response is sent.
 * Writes requested while one is in flight are coalesced into the next one (group commit).
 */
export function createStateFile(path: string) {
  let inFlight: Promise<void> | undefined
  let pending:
    | { take: () => EngineSnapshot; waiters: (() => void)[]; failures: ((e: unknown) => void)[] }
    | undefined

  function writeNow(snapshot: EngineSnapshot): void {
    const temporary = `${path}.${process.pid}.tmp`
    const fd = openSync(temporary, 'w', 0o600)
    try {
      writeFileSync(fd, JSON.stringify(snapshot))
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temporary, path)
    try {
      const dir = openSync(dirname(path), 'r')
      fsyncSync(dir)
      closeSync(dir)
    } catch {
      // Some file systems cannot fsync a folder; the rename is still atomic.
    }
  }

  async function drain(): Promise<void> {
    while (pending) {
      const batch = pending
      pending = undefined
      await new Promise((r) => setImmediate(r))
      try {
        writeNow(batch.take())
        for (const resolve of batch.waiters) resolve()
      } catch (error) {
        for (const reject of batch.failures) reject(error)
      }
    }
    inFlight = undefined
  }

  return {
    path,
    /** The saved state, or undefined when there is no file yet. Throws a readable error for a corrupt file. */
    load(): EngineSnapshot | undefined {
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

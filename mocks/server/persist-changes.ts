import type { EngineSnapshot } from '../engine/create-engine.ts'
import type { StateFile } from './state-file.ts'

/** What persistence needs from the platform: a change counter and a snapshot of the whole state. */
export interface Persistable {
  changes(): number
  snapshot(): EngineSnapshot
}

/**
 * The server's `beforeSend` hook for `--state-file`: a response is held until a write that contains
 * every change counted so far is on disk. The snapshot records which change count it covers, so a
 * request whose change was already written by another request's write does not wait again, and one
 * whose change came after a write was taken always waits for the next write.
 */
export function persistChanges(platform: Persistable, file: StateFile): () => Promise<void> {
  let durable = platform.changes()
  return async () => {
    if (platform.changes() <= durable) return
    let covered = 0
    await file.save(() => {
      covered = platform.changes()
      return platform.snapshot()
    })
    if (covered > durable) durable = covered
  }
}

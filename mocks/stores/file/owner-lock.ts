import { closeSync, constants, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { hostname } from 'node:os'
import { processGone, processIdentity } from '../../server/process-gone.ts'

/** Another live process owns the store. */
export class StoreLocked extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'StoreLocked'
  }
}

interface Owner {
  pid: number
  host: string
  since: string
  /** When the process started and in which boot (Linux), so that a later process given its id is not taken for it. */
  startTicks?: number
  bootId?: string
}

/** Locks this process holds, so that a second store on the same files in this process is refused too. */
const held = new Set<string>()

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0)

function readOwner(path: string): Owner | undefined {
  try {
    const owner = JSON.parse(readFileSync(path, 'utf8')) as Owner
    return Number.isSafeInteger(owner.pid) && typeof owner.host === 'string' ? owner : undefined
  } catch {
    return undefined
  }
}

function tryCreate(path: string, owner: Owner): boolean {
  let fd: number
  try {
    fd = openSync(path, CREATE, 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
  try {
    writeSync(fd, `${JSON.stringify(owner)}\n`)
  } finally {
    closeSync(fd)
  }
  return true
}

/**
 * Makes this process the one owner of a store: a lock file created exclusively beside it, naming the process
 * (its id, and on Linux its start time and boot). A lock left by a process that is gone on this machine is
 * taken over: no process has its id, or the one that has it is a zombie (killed, not yet reaped by its parent),
 * or another process got its id since. A lock held by a running process, or by one on another machine, refuses
 * with a message that says which and what to do.
 */
export function acquireOwnerLock(path: string, storeName: string): { release(): void } {
  const me: Owner = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    ...processIdentity(),
  }
  if (held.has(path))
    throw new StoreLocked(`${storeName} is in use by another mock in this process (${process.pid}).`)
  for (let attempt = 0; attempt < 3; attempt++) {
    if (tryCreate(path, me)) {
      held.add(path)
      return { release: () => releaseLock(path, me) }
    }
    const owner = readOwner(path)
    if (owner && owner.host !== me.host)
      throw new StoreLocked(
        `${storeName} is in use by process ${owner.pid} on ${owner.host} (since ${owner.since}). If that process is gone, delete ${path}.`,
      )
    if (owner && owner.pid !== me.pid && !processGone(owner.pid, owner))
      throw new StoreLocked(
        `${storeName} is in use by another mock (process ${owner.pid}, since ${owner.since}): stop it, or start this one on another store.`,
      )
    // Left by a process that is gone (or being written this instant: look once more before taking it).
    if (!owner && attempt === 0) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50)
      continue
    }
    try {
      unlinkSync(path)
    } catch {
      // Another process took it over first; the next attempt will say who.
    }
  }
  throw new StoreLocked(
    `${storeName}: could not take over its lock file ${path}; delete it if no mock uses the store.`,
  )
}

function releaseLock(path: string, me: Owner): void {
  held.delete(path)
  const owner = readOwner(path)
  if (owner?.pid !== me.pid || owner.since !== me.since) return
  try {
    unlinkSync(path)
  } catch {
    // Already gone.
  }
}

import { readFileSync } from 'node:fs'

/**
 * What tells a process from a later one that is given the same id: when it started (clock ticks since boot,
 * field 22 of `/proc/<pid>/stat`) and which boot of the machine it ran in. Linux only.
 */
export interface ProcessIdentity {
  startTicks: number
  bootId: string
}

/** The state letter (field 3) and start time (field 22) of `/proc/<pid>/stat`, or undefined. */
function procStat(pid: number): { state: string; startTicks: number } | undefined {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  const startTicks = Number(fields[19])
  return fields[0] && Number.isSafeInteger(startTicks) ? { state: fields[0], startTicks } : undefined
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined
  } catch {
    return undefined
  }
}

/** The identity of a running process (this one by default), where the system gives it (Linux). */
export function processIdentity(pid = process.pid): ProcessIdentity | undefined {
  const stat = procStat(pid)
  const boot = bootId()
  return stat && boot ? { startTicks: stat.startTicks, bootId: boot } : undefined
}

/** Whether a signal could reach `pid` (a process of another user counts: it exists). */
function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Whether the process that had `pid` has ended: no process has that id, the one that has it is a zombie (dead,
 * waiting for a parent that may never reap it: a container without an init, a slow supervisor), or it is
 * another process given the same id later (another start time, or another boot), when `identity` says which
 * one it was. Without `/proc`, only whether a signal could reach `pid`.
 */
export function processGone(pid: number, identity?: Partial<ProcessIdentity>): boolean {
  if (identity?.bootId !== undefined) {
    const boot = bootId()
    if (boot !== undefined && boot !== identity.bootId) return true
  }
  const stat = procStat(pid)
  if (!stat) return !signalable(pid)
  if (stat.state === 'Z' || stat.state === 'X') return true
  return identity?.startTicks !== undefined && identity.startTicks !== stat.startTicks
}

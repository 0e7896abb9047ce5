import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'

/** A child process the bench started, with its output as lines. */
export interface Child {
  name: string
  process: ChildProcess
  pid: number
  startedAt: number
  /** Resolves with the first match of `pattern` in the child's stdout (rejects if it exits first). */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it exited. */
  stop(graceMs?: number): Promise<void>
}

const running = new Set<ChildProcess>()
const temporaryFiles = new Set<string>()
let cleanupInstalled = false

function killAll(): void {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  running.clear()
  for (const file of temporaryFiles) rmSync(file, { force: true })
  temporaryFiles.clear()
}

/** Removes `file` when the bench ends, however it ends (keys files of the mocks it started). */
export function removeOnExit(file: string): string {
  temporaryFiles.add(file)
  return file
}

/** Kills every child on exit, Ctrl-C, SIGTERM and on an uncaught error, so that nothing outlives the bench. */
export function installCleanup(): void {
  if (cleanupInstalled) return
  cleanupInstalled = true
  process.on('exit', killAll)
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.once(signal, () => {
      console.error(`\nbench: ${signal}, stopping the servers.`)
      killAll()
      process.exit(130)
    })
  process.on('uncaughtException', (error) => {
    console.error('bench: failed:', error)
    killAll()
    process.exit(1)
  })
}

/** Spawns `node <args>` (or `command`), timed from the call; stdout is kept for `waitForLine`. */
export function spawnChild(
  name: string,
  args: string[],
  options: { command?: string; env?: NodeJS.ProcessEnv; ipc?: boolean } = {},
): Child {
  const startedAt = performance.now()
  const stdio: ('pipe' | 'ignore' | 'inherit' | 'ipc')[] = ['ignore', 'pipe', 'pipe']
  if (options.ipc) stdio.push('ipc')
  const child = spawn(options.command ?? process.execPath, args, {
    stdio,
    env: options.env ?? process.env,
  })
  if (child.pid === undefined) throw new Error(`Could not start ${name}.`)
  running.add(child)
  let output = ''
  let errors = ''
  const waiters = new Set<() => void>()
  child.stdout?.setEncoding('utf8')
  child.stdout?.on('data', (chunk: string) => {
    // Keep only the head of a chatty child's log (Prism logs every request).
    if (output.length < 64_000) output += chunk
    for (const wake of waiters) wake()
  })
  child.stderr?.setEncoding('utf8')
  child.stderr?.on('data', (chunk: string) => {
    if (errors.length < 16_000) errors += chunk
  })
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running.delete(child)
      for (const wake of waiters) wake()
      resolve()
    }),
  )

  return {
    name,
    process: child,
    pid: child.pid,
    startedAt,
    waitForLine(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`${name}: no line matching ${pattern} within ${timeoutMs} ms.\n${errors}`))
        }, timeoutMs)
        const check = () => {
          const found = pattern.exec(output)
          if (found) {
            clearTimeout(timer)
            waiters.delete(check)
            resolve(found)
          } else if (child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(timer)
            waiters.delete(check)
            reject(new Error(`${name} exited (${child.exitCode ?? child.signalCode}).\n${errors}`))
          }
        }
        waiters.add(check)
        check()
      })
    },
    async stop(graceMs = 2_000) {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      await exited
      clearTimeout(timer)
    },
  }
}

/** Resident set size of a process in MB (Linux `/proc`, else `ps`), or NaN when unknown. */
export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1]
    if (kb) return Number(kb) / 1024
  } catch {
    // Not Linux, or the process is gone.
  }
  return Number.NaN
}

/**
 * CPU time (user + system) a process has used so far, in ms, from Linux `/proc` (clock ticks of
 * 10 ms, the kernel's USER_HZ of 100); NaN elsewhere.
 */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return Number.NaN
  }
}

/** Runs a bench script in its own process and returns the JSON it prints on its last stdout line. */
export async function runJsonChild<T>(name: string, args: string[], timeoutMs = 120_000): Promise<T> {
  const child = spawnChild(name, args)
  const found = await child.waitForLine(/^RESULT (.+)$/m, timeoutMs)
  await child.stop()
  return JSON.parse(found[1] as string) as T
}

import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const TSX = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href
const MAIN = join(ROOT, 'cli/main.ts')

/** The mock CLI running in a child process. */
export interface SpawnedMock {
  child: ChildProcess
  pid: number
  /** e.g. `http://127.0.0.1:41234` */
  origin: string
  port: number
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string
  /** Resolves with the exit code or signal once the process is gone. */
  exited: Promise<string>
  kill(signal: NodeJS.Signals): Promise<string>
}

/**
 * Starts `voice-api-kit mock --port 0 <args>` (in `cwd`, the repository by default; with at most
 * `fileLimit` open descriptors when given) and resolves once its first line names the URL.
 */
export function spawnMock(
  args: string[],
  options: { cwd?: string; timeoutMs?: number; fileLimit?: number } = {},
): Promise<SpawnedMock> {
  const timeoutMs = options.timeoutMs ?? 20_000
  const argv = [process.execPath, '--import', TSX, MAIN, 'mock', '--port', '0', ...args]
  // With a descriptor limit, through a shell that lowers it (`ulimit -n`) and then becomes the mock.
  const [command, ...rest] =
    options.fileLimit === undefined
      ? argv
      : ['/bin/sh', '-c', `ulimit -n ${options.fileLimit} && exec "$@"`, 'sh', ...argv]
  const child = spawn(command ?? process.execPath, rest, {
    cwd: options.cwd ?? ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? String(code))),
  )
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the mock did not start in ${timeoutMs} ms:\n${output}`))
    }, timeoutMs)
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8')
      const match = /listening on (http:\/\/127\.0\.0\.1:(\d+))\/v1/.exec(output)
      if (!match?.[1] || !match[2]) return
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      child.stdout?.on('data', (more: Buffer) => {
        output += more.toString('utf8')
      })
      resolve({
        child,
        pid: child.pid ?? -1,
        origin: match[1],
        port: Number(match[2]),
        output: () => output,
        exited,
        kill: (signal) => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal)
          return exited
        },
      })
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
    })
    exited.then((how) => {
      clearTimeout(timer)
      reject(new Error(`the mock exited (${how}) before listening:\n${output}`))
    })
  })
}

/** A mock whose parent never reaps it: killed, it stays a zombie until `release()`. */
export interface UnreapedMock {
  /** The mock's process id (its parent is a `sleep` that never waits for it). */
  pid: number
  origin: string
  output(): string
  /** Sends a signal to the mock and resolves once it is a zombie (dead, not reaped). */
  killAndLeave(signal: NodeJS.Signals): Promise<void>
  /** Ends the parent: the zombie goes to init, which reaps it. */
  release(): Promise<void>
}

/** The state letter of a process in /proc (`Z` for a zombie), or undefined when there is no such process. */
export function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
  } catch {
    return undefined
  }
}

/**
 * Starts `voice-api-kit mock --port 0 <args>` as the child of a shell that then becomes `sleep`, a parent
 * that never reaps its children: as in a container without an init, or under a supervisor slow to reap.
 */
export function spawnUnreapedMock(args: string[], timeoutMs = 20_000): Promise<UnreapedMock> {
  const argv = [process.execPath, '--import', TSX, MAIN, 'mock', '--port', '0', ...args]
  const parent = spawn('/bin/sh', ['-c', '"$@" & echo "mock pid $!"; exec sleep 120', 'sh', ...argv], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const parentGone = new Promise<void>((resolve) => parent.once('exit', () => resolve()))
  let output = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      parent.kill('SIGKILL')
      reject(new Error(`the mock did not start in ${timeoutMs} ms:\n${output}`))
    }, timeoutMs)
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8')
      const pid = Number(/mock pid (\d+)/.exec(output)?.[1])
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(output)
      if (!match?.[1] || !pid) return
      clearTimeout(timer)
      resolve({
        pid,
        origin: match[1],
        output: () => output,
        async killAndLeave(signal) {
          process.kill(pid, signal)
          for (let i = 0; i < 200 && processState(pid) !== 'Z'; i++)
            await new Promise((r) => setTimeout(r, 10))
          if (processState(pid) !== 'Z')
            throw new Error(`process ${pid} is not a zombie: ${processState(pid)}`)
        },
        async release() {
          parent.kill('SIGKILL')
          await parentGone
        },
      })
    }
    parent.stdout?.on('data', onData)
    parent.stderr?.on('data', onData)
  })
}

import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { REPO_ROOT } from '../lib/repo-root.ts'

/** The mock CLI in its own process, so that its memory is measured apart from the load generator's. */
export interface ServerProcess {
  pid: number
  origin: string
  /** Resident set size in MB (Linux `/proc`), NaN elsewhere. */
  rssMb(): number
  stop(): Promise<void>
}

/** Starts `voice-api-kit mock --port 0 <args>` and resolves with its origin once it listens. */
export function startServerProcess(args: string[], timeoutMs = 30_000): Promise<ServerProcess> {
  const tsx = pathToFileURL(join(REPO_ROOT, 'node_modules/tsx/dist/loader.mjs')).href
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', tsx, join(REPO_ROOT, 'cli/main.ts'), 'mock', '--port', '0', ...args],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const pid = child.pid ?? -1
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  // Nothing outlives the soak, however it ends.
  process.once('exit', () => child.kill('SIGKILL'))
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => reject(new Error(`The mock did not start in ${timeoutMs} ms.`)), timeoutMs)
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8')
      const origin = /listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(output)?.[1]
      if (!origin) return
      clearTimeout(timer)
      child.stdout?.removeAllListeners('data')
      child.stdout?.resume()
      resolve({
        pid,
        origin,
        rssMb() {
          try {
            const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
            return kb ? Number(kb) / 1024 : Number.NaN
          } catch {
            return Number.NaN
          }
        },
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return
          child.kill('SIGTERM')
          const force = setTimeout(() => child.kill('SIGKILL'), 3_000)
          await exited
          clearTimeout(force)
        },
      })
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`The mock exited (${code}) before listening.`))
    })
  })
}

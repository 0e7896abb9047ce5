import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A `redis-server` of this test's own, on a free loopback port, with its data in a temporary folder. */
export interface TestRedis {
  url: string
  port: number
  stop(): Promise<void>
}

/** Whether Debian's `redis-server` is installed (CI installs it; a developer's machine may not have it). */
export function hasRedisServer(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

/**
 * Starts `redis-server` on 127.0.0.1 with an append-only file (fsync on every write by default, so an
 * acknowledged write survives as Redis promises it) and resolves once it answers PING.
 */
export async function startRedis(
  options: { appendfsync?: 'always' | 'everysec' | 'no' } = {},
): Promise<TestRedis> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'vak-redis-'))
  const child: ChildProcess = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      options.appendfsync ?? 'always',
    ],
    { stdio: 'ignore' },
  )
  for (let i = 0; i < 200; i++) {
    try {
      execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'pipe' })
      break
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    stop: () =>
      new Promise((resolve) => {
        const done = () => {
          rmSync(dir, { recursive: true, force: true })
          resolve()
        }
        if (child.exitCode !== null) return done()
        child.once('exit', done)
        child.kill('SIGTERM')
      }),
  }
}

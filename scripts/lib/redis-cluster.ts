import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A Redis Cluster of this test's own: masters on free loopback ports, no replicas, data in a temporary folder. */
export interface TestRedisCluster {
  /** `redis-cluster://127.0.0.1:<port>,...`, as `--store` takes it. */
  url: string
  ports: number[]
  stop(): Promise<void>
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

const cli = (port: number, ...args: string[]) =>
  execFileSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8', stdio: 'pipe' })

async function until(done: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`The test cluster: ${what} within ${timeoutMs} ms.`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * Starts `masters` `redis-server --cluster-enabled yes` on 127.0.0.1 (append-only files, fsync on every write,
 * as the single test Redis), joins them with `redis-cli --cluster create ... --cluster-replicas 0`, and
 * resolves once every node says `cluster_state:ok`.
 */
export async function startRedisCluster(masters = 3): Promise<TestRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'vak-redis-cluster-'))
  const ports: number[] = []
  for (let i = 0; i < masters; i++) ports.push(await freePort())
  const children: ChildProcess[] = ports.map((port) => {
    const data = join(dir, String(port))
    mkdirSync(data)
    return spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        data,
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(data, `nodes-${port}.conf`),
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
      ],
      { stdio: 'ignore' },
    )
  })
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve()
            child.once('exit', () => resolve())
            child.kill('SIGTERM')
          }),
      ),
    )
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    const answers = (port: number) => {
      try {
        return cli(port, 'ping').trim() === 'PONG'
      } catch {
        return false
      }
    }
    await until(() => ports.every(answers), 'the nodes did not answer PING')
    execFileSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ],
      { stdio: 'pipe' },
    )
    await until(
      () => ports.every((port) => cli(port, 'cluster', 'info').includes('cluster_state:ok')),
      'the cluster did not reach cluster_state:ok',
    )
  } catch (error) {
    await stop()
    throw error
  }
  return { url: `redis-cluster://${ports.map((port) => `127.0.0.1:${port}`).join(',')}`, ports, stop }
}

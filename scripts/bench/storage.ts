import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { hasRedisServer, startRedis } from '../lib/redis-server.ts'
import { removeOnExit, runJsonChild } from './children.ts'
import { drive } from './load.ts'
import { benchScript, RESULTS_DIR } from './paths.ts'
import { type MockServer, startMockServer } from './servers.ts'
import { round, summarize } from './stats.ts'

/** Latency of one kind of step, ms. */
interface Latency {
  samples: number
  p50: number
  p99: number
}

/** The embedded file store (and memory, for comparison) at one size, in-process. */
export interface EmbeddedStoreFigures {
  callLogs: number
  store: 'file' | 'memory'
  openMs: number
  snapshotMb: number
  logKbPerWrite: number
  write: Latency
  readAlone: Latency
  readWithWrites: Latency & { concurrentWrites: number }
}

/** Mock processes on one store under load, all of them driven at once. */
export interface SharedStoreFigures {
  label: string
  processes: number
  requestsPerSec: number
  p50Ms: number
  p99Ms: number
  non2xx: number
}

export interface StorageFigures {
  embedded: EmbeddedStoreFigures[]
  shared: SharedStoreFigures[]
  sharedSkipped?: string
}

export interface StorageSettings {
  callLogSizes: number[]
  writes: number
  reads: number
  connections: number
  durationSec: number
}

/** Drives every mock at once, `connections` shared between them, with GET /v1/agents; sums the throughput. */
async function driveTogether(
  label: string,
  mocks: MockServer[],
  secretKey: string,
  settings: StorageSettings,
): Promise<SharedStoreFigures> {
  const each = Math.max(1, Math.round(settings.connections / mocks.length))
  const request = (mock: MockServer) => ({
    url: `${mock.origin}/v1/agents?limit=20`,
    method: 'GET',
    headers: { authorization: `Bearer ${secretKey}` },
  })
  await Promise.all(mocks.map((mock) => drive(request(mock), each, 1)))
  const latencies: number[] = []
  const started = performance.now()
  const results = await Promise.all(
    mocks.map((mock) => drive(request(mock), each, settings.durationSec, (ms) => latencies.push(ms))),
  )
  const seconds = (performance.now() - started) / 1000
  const latency = summarize(latencies)
  return {
    label,
    processes: mocks.length,
    requestsPerSec: round(latencies.length / seconds, 0),
    p50Ms: round(latency.p50, 3),
    p99Ms: round(latency.p99, 3),
    non2xx: results.reduce((sum, result) => sum + result.non2xx, 0),
  }
}

/** 1, 2 and 3 mock processes on one Redis (GET /v1/agents, rate limits lifted), and one mock in memory. */
async function measureShared(
  mockEntry: string[],
  settings: StorageSettings,
  log: (line: string) => void,
): Promise<SharedStoreFigures[]> {
  const figures: SharedStoreFigures[] = []
  const keysFile = (name: string) => removeOnExit(join(RESULTS_DIR, `bench-${name}-keys.json`))
  const memory = await startMockServer(mockEntry, keysFile('memory'))
  try {
    figures.push(await driveTogether('memory (one process)', [memory], memory.secretKey, settings))
    log(`    memory: ${figures.at(-1)?.requestsPerSec} req/s, p99 ${figures.at(-1)?.p99Ms} ms`)
  } finally {
    await memory.child.stop()
  }
  const redis = await startRedis({ appendfsync: 'everysec' })
  try {
    for (const processes of [1, 2, 3]) {
      execFileSync('redis-cli', ['-p', String(redis.port), 'flushall'])
      const first = await startMockServer(mockEntry, keysFile('redis-0'), ['--store', redis.url])
      const others = await Promise.all(
        Array.from({ length: processes - 1 }, (_, i) =>
          startMockServer(mockEntry, keysFile(`redis-${i + 1}`), ['--store', redis.url]),
        ),
      )
      try {
        const label = `Redis, ${processes} process${processes > 1 ? 'es' : ''}`
        figures.push(await driveTogether(label, [first, ...others], first.secretKey, settings))
        log(`    ${label}: ${figures.at(-1)?.requestsPerSec} req/s, p99 ${figures.at(-1)?.p99Ms} ms`)
      } finally {
        await Promise.all([first, ...others].map((mock) => mock.child.stop()))
      }
    }
  } finally {
    await redis.stop()
  }
  return figures
}

/**
 * The storage section of `npm run bench`: the embedded file store's write latency and read latency (alone,
 * and under concurrent writes) at each size, with the in-memory store as the baseline; then throughput and
 * latency of 1, 2 and 3 mock processes on one Redis against one in-memory mock, all in the same run.
 */
export async function measureStorage(
  mockEntry: string[],
  settings: StorageSettings,
  log: (line: string) => void,
): Promise<StorageFigures> {
  const embedded: EmbeddedStoreFigures[] = []
  for (const callLogs of settings.callLogSizes) {
    for (const store of ['memory', 'file'] as const) {
      const figures = await runJsonChild<EmbeddedStoreFigures>(
        `storage-${store}`,
        [
          ...benchScript('storage-child.ts'),
          String(callLogs),
          store,
          String(settings.writes),
          String(settings.reads),
        ],
        600_000,
      )
      embedded.push(figures)
      log(
        `    ${store}, ${callLogs} call logs: write p50 ${figures.write.p50} / p99 ${figures.write.p99} ms; read p99 ${figures.readAlone.p99} ms alone, ${figures.readWithWrites.p99} ms with writes`,
      )
    }
  }
  if (!hasRedisServer()) return { embedded, shared: [], sharedSkipped: 'redis-server is not installed' }
  return { embedded, shared: await measureShared(mockEntry, settings, log) }
}

/**
 * Several mock processes on one Redis against one mock in memory, in rounds, on this machine as it is:
 * `GET /v1/agents?limit=20` with the demo account's limits lifted, `--connections` autocannon connections in
 * all (split between the processes). For each run: requests per second of the memory mock and of 1..n
 * processes on Redis, the ratios (Redis, 1 process / memory; n processes / 1 process), Redis commands per
 * request (from Redis's INFO) and the stores' own count of round trips per request (printed by each process
 * as it stops), and the load average, since a shared machine moves every figure.
 *   node --import tsx scripts/bench/shared-store.ts [--runs 3] [--duration 5] [--connections 12] [--processes 1,3]
 * Needs the build (`npm run build`: dist/cli/main.js) and redis-server.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { hasRedisServer, startRedis } from '../lib/redis-server.ts'
import { installCleanup, removeOnExit, spawnChild } from './children.ts'
import { drive } from './load.ts'
import { MOCK_DIST_MAIN, RESULTS_DIR } from './paths.ts'
import { liftLimits, type MockServer } from './servers.ts'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '12' },
    processes: { type: 'string', default: '1,3' },
  },
})
const runs = Number(values.runs)
const durationSec = Number(values.duration)
const connections = Number(values.connections)
const counts = (values.processes ?? '1,3').split(',').map(Number)
if (!existsSync(MOCK_DIST_MAIN)) throw new Error('No dist/cli/main.js: run npm run build first.')
if (!hasRedisServer()) throw new Error('redis-server is not installed.')
installCleanup()
mkdirSync(RESULTS_DIR, { recursive: true })

/** A mock of the build, with its store statistics line kept (printed when it stops). */
async function startMock(index: number, store: string[]): Promise<MockServer & { statsLine(): string }> {
  const keysFile = removeOnExit(join(RESULTS_DIR, `shared-bench-${index}-keys.json`))
  const child = spawnChild('mock', [MOCK_DIST_MAIN, 'mock', '--port', '0', '--keys-file', keysFile, ...store])
  const found = await child.waitForLine(/listening on (http:\/\/\S+)\/v1/)
  const origin = found[1] as string
  const lines: string[] = []
  child.process.stdout?.on('data', (chunk: string) => lines.push(chunk))
  const keys = JSON.parse(readFileSync(keysFile, 'utf8')) as {
    control_url: string
    account_id: string
    secret_key: string | null
  }
  await liftLimits(keys.control_url, keys.account_id)
  return {
    name: 'mock',
    child,
    origin,
    pathFor: (path) => path,
    secretKey: keys.secret_key ?? '',
    accountId: keys.account_id,
    controlUrl: keys.control_url,
    statsLine: () => /store: .*round trips.*/.exec(lines.join(''))?.[0] ?? '',
  }
}

/** Drives every mock at once with `connections` split between them; the summed requests per second. */
async function together(mocks: MockServer[], key: string): Promise<number> {
  const each = Math.max(1, Math.round(connections / mocks.length))
  const request = (mock: MockServer) => ({
    url: `${mock.origin}/v1/agents?limit=20`,
    method: 'GET',
    headers: { authorization: `Bearer ${key}` },
  })
  await Promise.all(mocks.map((mock) => drive(request(mock), each, 1)))
  let answered = 0
  const started = performance.now()
  const results = await Promise.all(
    mocks.map((mock) =>
      drive(request(mock), each, durationSec, () => {
        answered++
      }),
    ),
  )
  const bad = results.reduce((sum, result) => sum + result.non2xx + result.errors, 0)
  if (bad > 0) throw new Error(`${bad} answers were not 2xx`)
  return answered / ((performance.now() - started) / 1000)
}

const commands = (port: number) =>
  Number(
    /total_commands_processed:(\d+)/.exec(
      execFileSync('redis-cli', ['-p', String(port), 'info', 'stats'], { encoding: 'utf8' }),
    )?.[1] ?? 0,
  )

console.log(
  `shared-store bench: ${runs} runs, ${durationSec} s each, ${connections} connections in all, GET /v1/agents?limit=20`,
)
for (let run = 1; run <= runs; run++) {
  const loadBefore = loadavg()[0] ?? 0
  const memory = await startMock(0, [])
  const memoryRate = await together([memory], memory.secretKey)
  await memory.child.stop()
  const redis = await startRedis({ appendfsync: 'everysec' })
  const rates = new Map<number, number>()
  const notes: string[] = []
  try {
    for (const processes of counts) {
      execFileSync('redis-cli', ['-p', String(redis.port), 'flushall'])
      const first = await startMock(1, ['--store', redis.url])
      const others = await Promise.all(
        Array.from({ length: processes - 1 }, (_, i) => startMock(i + 2, ['--store', redis.url])),
      )
      const mocks = [first, ...others]
      const before = commands(redis.port)
      const started = performance.now()
      const rate = await together(mocks, first.secretKey)
      const seconds = (performance.now() - started) / 1000
      const perRequest = (commands(redis.port) - before) / (rate * seconds)
      rates.set(processes, rate)
      await Promise.all(mocks.map((mock) => mock.child.stop()))
      const stats = mocks.map((mock) => mock.statsLine()).filter(Boolean)
      notes.push(
        `${processes}p: ${perRequest.toFixed(2)} Redis commands/request${stats.length > 0 ? ` (${stats.join('; ')})` : ''}`,
      )
    }
  } finally {
    await redis.stop()
  }
  const loadAfter = loadavg()[0] ?? 0
  const one = rates.get(1) ?? Number.NaN
  const figures = [...rates].map(([p, rate]) => `redis ${p}p ${Math.round(rate)}`).join(', ')
  const ratios = [
    `redis 1p / memory ${(one / memoryRate).toFixed(2)}`,
    ...[...rates].filter(([p]) => p > 1).map(([p, rate]) => `${p}p / 1p ${(rate / one).toFixed(2)}`),
  ].join(', ')
  console.log(
    `run ${run}: memory ${Math.round(memoryRate)}, ${figures} req/s; ${ratios}; load average ${loadBefore.toFixed(1)} -> ${loadAfter.toFixed(1)}`,
  )
  for (const note of notes) console.log(`  ${note}`)
}

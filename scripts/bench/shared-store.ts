/**
 * Several mock processes on one Redis against mocks in memory, in rounds, on this machine as it is:
 * `GET /v1/agents?limit=20` with the demo account's limits lifted, `--connections` autocannon connections in
 * all (split between the processes). For each run: requests per second of one mock in memory, of as many
 * mocks in memory as the largest Redis configuration (each with a state of its own: what this machine gives
 * that many processes when they share nothing), and of 1..n processes on one Redis; the ratios (Redis, 1
 * process / memory; n processes / 1 process; and the same for memory); CPU per request of the mocks and of
 * Redis; the commands Redis ran per request (its INFO, scripts' inner commands included) and the stores' own
 * count of round trips per request (printed by each process as it stops); and the load average, since a
 * shared machine moves every figure.
 *   node --import tsx scripts/bench/shared-store.ts [--runs 3] [--duration 5] [--connections 12] [--processes 1,3]
 * Needs the build (`npm run build`: dist/cli/main.js) and redis-server.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { hasRedisServer, startRedis } from '../lib/redis-server.ts'
import { cpuMs, installCleanup, removeOnExit, spawnChild } from './children.ts'
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

/**
 * Drives every mock at once with `connections` split between them (each with `key`, or its own demo key): the
 * summed requests per second, and the CPU time (µs per request) the mocks and `others` (Redis) used meanwhile.
 */
async function together(
  mocks: MockServer[],
  key: string | undefined,
  others: number[] = [],
): Promise<{ rate: number; mockCpu: number; otherCpu: number }> {
  const each = Math.max(1, Math.round(connections / mocks.length))
  const request = (mock: MockServer) => ({
    url: `${mock.origin}/v1/agents?limit=20`,
    method: 'GET',
    headers: { authorization: `Bearer ${key ?? mock.secretKey}` },
  })
  await Promise.all(mocks.map((mock) => drive(request(mock), each, 1)))
  let answered = 0
  const cpu = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuMs(pid), 0)
  const pids = mocks.map((mock) => mock.child.pid)
  const [mocksBefore, othersBefore] = [cpu(pids), cpu(others)]
  const started = performance.now()
  const results = await Promise.all(
    mocks.map((mock) =>
      drive(request(mock), each, durationSec, () => {
        answered++
      }),
    ),
  )
  const seconds = (performance.now() - started) / 1000
  const perRequest = (ms: number) => Math.round((ms * 1000) / answered)
  const bad = results.reduce((sum, result) => sum + result.non2xx + result.errors, 0)
  if (bad > 0) throw new Error(`${bad} answers were not 2xx`)
  return {
    rate: answered / seconds,
    mockCpu: perRequest(cpu(pids) - mocksBefore),
    otherCpu: perRequest(cpu(others) - othersBefore),
  }
}

/** Redis's own time per script call (µs, `INFO commandstats`), since the last `CONFIG RESETSTAT`. */
const scriptMicros = (port: number) => {
  const stats = execFileSync('redis-cli', ['-p', String(port), 'info', 'commandstats'], { encoding: 'utf8' })
  const line = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(stats)
  return line ? Number(line[2]) / Number(line[1]) : Number.NaN
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
  const memoryRun = await together([memory], memory.secretKey)
  const memoryRate = memoryRun.rate
  await memory.child.stop()
  const most = Math.max(...counts)
  const apart = await Promise.all(Array.from({ length: most }, (_, i) => startMock(i, [])))
  const apartRun = await together(apart, undefined)
  await Promise.all(apart.map((mock) => mock.child.stop()))
  const redis = await startRedis({ appendfsync: 'everysec' })
  const rates = new Map<number, number>()
  const notes: string[] = [
    `memory: mock CPU ${memoryRun.mockCpu} µs/request; ${most} in memory apart: ${apartRun.mockCpu} µs/request`,
  ]
  const redisPid = Number(
    /process_id:(\d+)/.exec(
      execFileSync('redis-cli', ['-p', String(redis.port), 'info', 'server'], { encoding: 'utf8' }),
    )?.[1],
  )
  try {
    for (const processes of counts) {
      execFileSync('redis-cli', ['-p', String(redis.port), 'flushall'])
      const first = await startMock(1, ['--store', redis.url])
      const others = await Promise.all(
        Array.from({ length: processes - 1 }, (_, i) => startMock(i + 2, ['--store', redis.url])),
      )
      const mocks = [first, ...others]
      execFileSync('redis-cli', ['-p', String(redis.port), 'config', 'resetstat'])
      const before = commands(redis.port)
      const started = performance.now()
      const { rate, mockCpu, otherCpu } = await together(mocks, first.secretKey, [redisPid])
      const seconds = (performance.now() - started) / 1000
      const perRequest = (commands(redis.port) - before) / (rate * seconds)
      rates.set(processes, rate)
      await Promise.all(mocks.map((mock) => mock.child.stop()))
      const stats = mocks.map((mock) => mock.statsLine()).filter(Boolean)
      notes.push(
        `${processes}p: mock CPU ${mockCpu} µs/request, Redis CPU ${otherCpu} µs/request (${scriptMicros(redis.port).toFixed(1)} µs per script call), ${perRequest.toFixed(2)} commands Redis ran per request (scripts' inner ones included)${stats.length > 0 ? `; ${stats.join('; ')}` : ''}`,
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
    `run ${run}: memory ${Math.round(memoryRate)}, ${most} in memory apart ${Math.round(apartRun.rate)}, ${figures} req/s; ${ratios}, memory ${most}p apart / 1p ${(apartRun.rate / memoryRate).toFixed(2)}; load average ${loadBefore.toFixed(1)} -> ${loadAfter.toFixed(1)}`,
  )
  for (const note of notes) console.log(`  ${note}`)
}

/**
 * Mock processes on one Redis against mocks in memory, on this machine as it is: `GET /v1/agents?limit=20` with
 * the demo account's limits lifted, `--connections` autocannon connections in all (split between a
 * configuration's processes). Configurations, all started at once and driven in turn, `--rounds` rounds of
 * `--duration` seconds each in rotating order (A B C D, B C D A, ...), so that a burst of other work on a shared
 * machine falls on every configuration alike:
 * - one mock in memory;
 * - as many mocks in memory as the largest Redis configuration, each with a state of its own (what this machine
 *   gives that many processes when they share nothing: the ceiling for them);
 * - 1..n processes on one Redis (a Redis of their own per configuration).
 * For each run: requests per second, the ratios (Redis, 1 process / memory; n processes / 1 process; the same
 * for memory apart), CPU per request of the mocks and of Redis, Redis's own time per script call, the commands
 * Redis ran per request (its INFO, scripts' inner commands included) and the stores' count of round trips per
 * request (printed by each process as it stops), and the load average.
 * `--request write` drives `PATCH` of one agent instead (writes to one account), `--request global`
 * `GET /_mock/accounts` (a step over the whole state, under the store's global lock).
 *   node --import tsx scripts/bench/shared-store.ts [--runs 3] [--rounds 6] [--duration 1] [--connections 12]
 *     [--processes 1,3] [--request read|write|global]
 * Needs the build (`npm run build`: dist/cli/main.js) and redis-server.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { hasRedisServer, startRedis, type TestRedis } from '../lib/redis-server.ts'
import { cpuMs, installCleanup, removeOnExit, spawnChild } from './children.ts'
import { drive } from './load.ts'
import { MOCK_DIST_MAIN, RESULTS_DIR } from './paths.ts'
import { liftLimits, type MockServer } from './servers.ts'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '6' },
    duration: { type: 'string', default: '1' },
    connections: { type: 'string', default: '12' },
    processes: { type: 'string', default: '1,3' },
    request: { type: 'string', default: 'read' },
  },
})
const kind = values.request ?? 'read'
if (!['read', 'write', 'global'].includes(kind)) throw new Error('--request takes read, write or global.')
const runs = Number(values.runs)
const rounds = Number(values.rounds)
const durationSec = Number(values.duration)
const connections = Number(values.connections)
const counts = (values.processes ?? '1,3').split(',').map(Number)
if (!existsSync(MOCK_DIST_MAIN)) throw new Error('No dist/cli/main.js: run npm run build first.')
if (!hasRedisServer()) throw new Error('redis-server is not installed.')
installCleanup()
mkdirSync(RESULTS_DIR, { recursive: true })

type Mock = MockServer & { statsLine(): string }
let started = 0

/** A mock of the build, with its store statistics line kept (printed when it stops). */
async function startMock(store: string[]): Promise<Mock> {
  const keysFile = removeOnExit(join(RESULTS_DIR, `shared-bench-${started++}-keys.json`))
  const child = spawnChild('mock', [MOCK_DIST_MAIN, 'mock', '--port', '0', '--keys-file', keysFile, ...store])
  const found = await child.waitForLine(/listening on (http:\/\/\S+)\/v1/)
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
    origin: found[1] as string,
    pathFor: (path) => path,
    secretKey: keys.secret_key ?? '',
    accountId: keys.account_id,
    controlUrl: keys.control_url,
    statsLine: () => /store: .*round trips.*/.exec(lines.join(''))?.[0] ?? '',
  }
}

const redisInfo = (port: number, section: string) =>
  execFileSync('redis-cli', ['-p', String(port), 'info', section], { encoding: 'utf8' })

/** A configuration: its processes, the key they are driven with, its Redis, and what it did so far. */
interface Configuration {
  label: string
  mocks: Mock[]
  /** The key every process is driven with; undefined: each its own demo key. */
  key?: string
  redis?: TestRedis & { pid: number }
  /** An agent of the account driven (`--request write` renames it). */
  agentId: string
  answered: number
  seconds: number
  mockCpuMs: number
  redisCpuMs: number
  commands: number
}

async function configuration(label: string, processes: number, onRedis: boolean): Promise<Configuration> {
  const redis = onRedis ? await startRedis({ appendfsync: 'everysec' }) : undefined
  const pid = redis ? Number(/process_id:(\d+)/.exec(redisInfo(redis.port, 'server'))?.[1]) : 0
  // However the bench ends (Ctrl-C included), its Redis goes too.
  if (pid > 0)
    process.once('exit', () => {
      try {
        process.kill(pid)
      } catch {
        // Already stopped.
      }
    })
  const store = redis ? ['--store', redis.url] : []
  const first = await startMock(store)
  const mocks = [first, ...(await Promise.all(Array.from({ length: processes - 1 }, () => startMock(store))))]
  const listed = await fetch(`${first.origin}/v1/agents?limit=1`, {
    headers: { authorization: `Bearer ${first.secretKey}` },
  })
  const agentId = ((await listed.json()) as { data: { id: string }[] }).data[0]?.id ?? ''
  return {
    agentId,
    label,
    mocks,
    key: redis ? first.secretKey : undefined,
    redis: redis && { ...redis, pid },
    answered: 0,
    seconds: 0,
    mockCpuMs: 0,
    redisCpuMs: 0,
    commands: 0,
  }
}

function request(config: Configuration, mock: Mock) {
  const authorization = `Bearer ${config.key ?? mock.secretKey}`
  if (kind === 'write')
    return {
      url: `${mock.origin}/v1/agents/${config.agentId}`,
      method: 'PATCH',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Renamed by the bench' }),
    }
  if (kind === 'global')
    return { url: `${mock.origin}/_mock/accounts`, method: 'GET', headers: {} as Record<string, string> }
  return { url: `${mock.origin}/v1/agents?limit=20`, method: 'GET', headers: { authorization } }
}

/** Drives a configuration's processes at once for `seconds`, `connections` split between them. */
async function turn(config: Configuration, seconds: number, count = true): Promise<void> {
  const each = Math.max(1, Math.round(connections / config.mocks.length))
  const mockCpu = () => config.mocks.reduce((sum, mock) => sum + cpuMs(mock.child.pid), 0)
  const redisCpu = () => (config.redis ? cpuMs(config.redis.pid) : 0)
  const commands = () =>
    config.redis
      ? Number(/total_commands_processed:(\d+)/.exec(redisInfo(config.redis.port, 'stats'))?.[1] ?? 0)
      : 0
  const before = { mock: mockCpu(), redis: redisCpu(), commands: commands(), at: performance.now() }
  let answered = 0
  const results = await Promise.all(
    config.mocks.map((mock) =>
      drive(request(config, mock), each, seconds, () => {
        answered++
      }),
    ),
  )
  const bad = results.reduce((sum, result) => sum + result.non2xx + result.errors, 0)
  if (bad > 0) throw new Error(`${config.label}: ${bad} answers were not 2xx`)
  if (!count) return
  config.seconds += (performance.now() - before.at) / 1000
  config.answered += answered
  config.mockCpuMs += mockCpu() - before.mock
  config.redisCpuMs += redisCpu() - before.redis
  config.commands += commands() - before.commands
}

console.log(
  `shared-store bench: ${runs} runs of ${rounds} rotating rounds, ${durationSec} s per configuration and round, ${connections} connections in all, ${{ read: 'GET /v1/agents?limit=20', write: 'PATCH /v1/agents/{id} of one account', global: 'GET /_mock/accounts' }[kind]}`,
)
const most = Math.max(...counts)
for (let run = 1; run <= runs; run++) {
  const loadBefore = loadavg()[0] ?? 0
  const configs = [
    await configuration('memory', 1, false),
    await configuration(`${most} in memory apart`, most, false),
    ...(await Promise.all(counts.map((n) => configuration(`redis ${n}p`, n, true)))),
  ]
  for (const config of configs) {
    await turn(config, 1, false)
    if (config.redis) execFileSync('redis-cli', ['-p', String(config.redis.port), 'config', 'resetstat'])
  }
  for (let round = 0; round < rounds; round++)
    for (let k = 0; k < configs.length; k++)
      await turn(configs[(k + round) % configs.length] as Configuration, durationSec)
  const loadAfter = loadavg()[0] ?? 0
  const rate = (config: Configuration) => config.answered / config.seconds
  const [memory, apart, ...shared] = configs as [Configuration, Configuration, ...Configuration[]]
  const one = shared.find((config) => config.mocks.length === 1) ?? (shared[0] as Configuration)
  const ratios = [
    `redis 1p / memory ${(rate(one) / rate(memory)).toFixed(2)}`,
    ...shared
      .filter((config) => config !== one)
      .map((config) => `redis ${config.mocks.length}p / 1p ${(rate(config) / rate(one)).toFixed(2)}`),
    `memory ${most}p apart / 1p ${(rate(apart) / rate(memory)).toFixed(2)}`,
  ]
  console.log(
    `run ${run}: ${configs.map((config) => `${config.label} ${Math.round(rate(config))}`).join(', ')} req/s; ${ratios.join(', ')}; load average ${loadBefore.toFixed(1)} -> ${loadAfter.toFixed(1)}`,
  )
  for (const config of configs) {
    const perRequest = (ms: number) => Math.round((ms * 1000) / config.answered)
    const notes = [`mock CPU ${perRequest(config.mockCpuMs)} µs/request`]
    if (config.redis) {
      const stats = /cmdstat_evalsha:calls=(\d+),usec=(\d+)/.exec(
        redisInfo(config.redis.port, 'commandstats'),
      )
      notes.push(
        `Redis CPU ${perRequest(config.redisCpuMs)} µs/request`,
        `${stats ? (Number(stats[2]) / Number(stats[1])).toFixed(1) : '?'} µs of Redis per script call`,
        `${(config.commands / config.answered).toFixed(2)} commands Redis ran per request (scripts' inner ones included)`,
      )
    }
    await Promise.all(config.mocks.map((mock) => mock.child.stop()))
    const stats = config.mocks.map((mock) => mock.statsLine()).filter(Boolean)
    console.log(`  ${config.label}: ${notes.join(', ')}${stats.length > 0 ? `; ${stats.join('; ')}` : ''}`)
    await config.redis?.stop()
  }
}

/**
 * Soak benchmark (not part of CI): runs the mock CLI in its own process under a fixed request rate for
 * a long time (10 minutes by default) and compares its resident memory after warm-up with the end.
 *
 *   npm run soak                               # 10 min at 200 req/s
 *   npm run soak -- --seconds 60 --rate 500    # a short run
 *   npm run soak -- --state-file /tmp/s.json   # with durable writes
 *
 * Exits 1 when RSS grew by more than --max-growth (default 10%) or any request failed or got a 5xx.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { startLoad } from './soak/autocannon.ts'
import { requestMix } from './soak/request-mix.ts'
import { startServerProcess } from './soak/server-process.ts'

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '600' },
    rate: { type: 'string', default: '200' },
    connections: { type: 'string', default: '10' },
    warmup: { type: 'string' },
    'max-growth': { type: 'string', default: '0.10' },
    'state-file': { type: 'string' },
  },
})
const seconds = Number(values.seconds)
const rate = Number(values.rate)
const connections = Number(values.connections)
const warmupSec = values.warmup !== undefined ? Number(values.warmup) : Math.min(60, Math.ceil(seconds / 10))
const maxGrowth = Number(values['max-growth'])
if (
  ![seconds, rate, connections, warmupSec, maxGrowth].every((n) => Number.isFinite(n) && n >= 0) ||
  warmupSec >= seconds
)
  throw new Error(
    'soak: --seconds, --rate, --connections, --warmup and --max-growth must be numbers, warm-up < seconds.',
  )

const folder = mkdtempSync(join(tmpdir(), 'vak-soak-'))
const keysFile = join(folder, 'keys.json')
const serverArgs = ['--quiet', '--keys-file', keysFile]
if (values['state-file']) serverArgs.push('--state-file', values['state-file'])
const server = await startServerProcess(serverArgs)
const origin = server.origin
for (let i = 0; i < 100 && !existsSync(keysFile); i++) await new Promise((resolve) => setTimeout(resolve, 20))
const keys = JSON.parse(readFileSync(keysFile, 'utf8')) as { account_id: string; secret_key: string | null }
if (!keys.secret_key) throw new Error('soak: the keys file has no secret key (reuse of an old state file?).')

// The demo account (it has seeded call logs), with limits the load never reaches.
const raised = await fetch(`${origin}/_mock/accounts/${keys.account_id}`, {
  method: 'PATCH',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ limits: { hourly: 100_000_000, burst: 100_000_000 } }),
})
if (raised.status !== 200)
  throw new Error(`soak: could not raise the demo account's limits (${raised.status}).`)

const samples: { at: number; rssMb: number }[] = []
let responses = 0
const started = performance.now()
const sample = () => samples.push({ at: (performance.now() - started) / 1000, rssMb: server.rssMb() })
let startRss = Number.NaN
const warmupTimer = setTimeout(() => {
  sample()
  startRss = samples.at(-1)?.rssMb ?? Number.NaN
  console.log(`soak: warm-up over after ${warmupSec} s, RSS ${startRss.toFixed(1)} MB`)
}, warmupSec * 1000)
const sampler = setInterval(() => {
  sample()
  const last = samples.at(-1)
  console.log(
    `soak: ${Math.round(last?.at ?? 0)} s, RSS ${last?.rssMb.toFixed(1)} MB, ${responses} responses`,
  )
}, 30_000)
// A hard stop, whatever happens to autocannon.
const deadline = setTimeout(
  () => {
    console.error('soak: did not finish in time; stopping.')
    void server.stop().then(() => process.exit(1))
  },
  (seconds + 120) * 1000,
)

console.log(
  `soak: ${seconds} s at ${rate} req/s over ${connections} connections against ${origin} (server pid ${server.pid})`,
)
sample()
const instance = startLoad({
  url: origin,
  connections,
  overallRate: rate,
  duration: seconds,
  timeout: 10,
  headers: { authorization: `Bearer ${keys.secret_key}`, 'content-type': 'application/json' },
  requests: requestMix(),
})
instance.on('response', () => {
  responses++
})
const result = await instance
sample()
const endRss = samples.at(-1)?.rssMb ?? Number.NaN
clearTimeout(warmupTimer)
clearInterval(sampler)
clearTimeout(deadline)
await server.stop()
rmSync(folder, { recursive: true, force: true })

const statusCodes = Object.fromEntries(
  Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]),
)
const fivexx = Object.entries(statusCodes)
  .filter(([code]) => code.startsWith('5'))
  .reduce((sum, [, count]) => sum + count, 0)
const growth = (endRss - startRss) / startRss
const peak = Math.max(...samples.map((s) => s.rssMb))
const summary = {
  seconds,
  rate,
  connections,
  warmupSec,
  requests: result.requests.total,
  requestsPerSec: Math.round(result.requests.average),
  latencyP50Ms: result.latency.p50,
  latencyP99Ms: result.latency.p99,
  errors: result.errors,
  timeouts: result.timeouts,
  statusCodes,
  rssStartMb: Number(startRss.toFixed(1)),
  rssEndMb: Number(endRss.toFixed(1)),
  rssPeakMb: Number(peak.toFixed(1)),
  rssGrowthPercent: Number((growth * 100).toFixed(2)),
}
console.log(
  `soak: ${summary.requests} requests (${summary.requestsPerSec} req/s), p50 ${summary.latencyP50Ms} ms, p99 ${summary.latencyP99Ms} ms, ` +
    `statuses ${JSON.stringify(statusCodes)}, errors ${result.errors}, timeouts ${result.timeouts}`,
)
console.log(
  `soak: RSS ${summary.rssStartMb} MB after warm-up -> ${summary.rssEndMb} MB at the end (${summary.rssGrowthPercent}%, peak ${summary.rssPeakMb} MB)`,
)
console.log(`RESULT ${JSON.stringify(summary)}`)
const failed = !(growth < maxGrowth) || fivexx > 0 || result.errors > 0 || result.timeouts > 0
if (failed)
  console.error(
    `soak: FAILED (RSS growth must stay under ${maxGrowth * 100}%, with no 5xx, error or timeout).`,
  )
process.exit(failed ? 1 : 0)

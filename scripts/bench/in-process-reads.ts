/**
 * The engine's hot path alone: `GET /v1/agents?limit=20` answered by `platform.handle` in this process (no
 * HTTP), with the memory store and the demo account's limits lifted. Prints, for each round and as medians,
 * requests per second and this process's CPU time per request (µs; steadier than the rate on a busy machine),
 * so that a change to the store's path can be checked for a slowdown.
 *   node --import tsx scripts/bench/in-process-reads.ts [rounds=7] [requests per round=20000]
 */
import { createMockPlatform } from '../../mocks/platform.ts'

const rounds = Number(process.argv[2] ?? 7)
const perRound = Number(process.argv[3] ?? 20_000)

const platform = await createMockPlatform()
await platform.handle({
  method: 'PATCH',
  url: `/_mock/accounts/${platform.demo.account.id}`,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ limits: { hourly: 100_000_000, burst: 100_000_000 } }),
})
const request = {
  method: 'GET',
  url: '/v1/agents?limit=20',
  headers: { authorization: `Bearer ${platform.demo.secretKey}` },
  body: null,
}
for (let i = 0; i < 2000; i++) await platform.handle(request)
const rates: number[] = []
const cpu: number[] = []
for (let round = 0; round < rounds; round++) {
  const started = performance.now()
  const cpuBefore = process.cpuUsage()
  for (let i = 0; i < perRound; i++) {
    const response = await platform.handle(request)
    if (response.status !== 200) throw new Error(`answered ${response.status}`)
  }
  const used = process.cpuUsage(cpuBefore)
  cpu.push(Math.round(((used.user + used.system) / perRound) * 10) / 10)
  rates.push(Math.round(perRound / ((performance.now() - started) / 1000)))
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
console.log(
  `rounds ${rates.join(' ')} req/s, ${cpu.join(' ')} µs CPU/request; median ${median(rates)} req/s, ${median(cpu)} µs CPU/request`,
)
await platform.close()

/**
 * Child process of the list-latency bench: seeds 100,000 call logs (or argv[2]) in-process, reports RSS
 * after a GC, times list pages through `platform.handle(...)` at random cursors, then serves the same
 * platform over HTTP so that the harness can time the same pages from outside (and learn their
 * server-side time over IPC). Run with --expose-gc and an IPC channel.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createMockPlatform } from '../../mocks/platform.ts'
import { createHttpServer, listen } from '../../mocks/server/http-server.ts'
import { LIST_PAGE_LIMITS } from './cases.ts'
import { RESULTS_DIR } from './paths.ts'
import { round, summarize } from './stats.ts'

const count = Number(process.argv[2] ?? 100_000)
const iterations = Number(process.argv[3] ?? 2_000)
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined)
const megabytes = (bytes: number) => round(bytes / 1024 / 1024, 1)

const seedStarted = performance.now()
const platform = await createMockPlatform({ seedSize: { callLogs: count } })
const seedMs = performance.now() - seedStarted
const authorization = `Bearer ${platform.demo.secretKey}`
const get = (url: string) => platform.handle({ method: 'GET', url, headers: { authorization }, body: null })

const lifted = await platform.handle({
  method: 'PATCH',
  url: `/_mock/accounts/${platform.demo.account.id}`,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ limits: { hourly: 100_000_000, burst: 100_000_000 } }),
})
if (lifted.status !== 200) throw new Error(`Lifting the limits failed: ${lifted.status}`)

gc()
const memory = process.memoryUsage()

// Every id, newest first, by agent: read through the API itself, a page of 100 at a time.
const ids: string[] = []
const byAgent = new Map<string, string[]>()
let cursor = ''
for (;;) {
  const page = await get(`/v1/call-logs?limit=100${cursor ? `&starting_after=${cursor}` : ''}`)
  const body = page.body as { data: { id: string; agent_id: string }[]; has_more: boolean }
  for (const log of body.data) {
    ids.push(log.id)
    const list = byAgent.get(log.agent_id) ?? []
    list.push(log.id)
    byAgent.set(log.agent_id, list)
  }
  if (!body.has_more || body.data.length === 0) break
  cursor = body.data[body.data.length - 1]?.id ?? ''
}
if (ids.length !== count) throw new Error(`Paged ${ids.length} call logs, expected ${count}.`)

const pick = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)] as T
const agents = [...byAgent.keys()]

/** Random requests of each kind and page size: `iterations` URLs each. */
const kinds: Record<string, (limit: number) => string> = {
  'first page': (limit) => `/v1/call-logs?limit=${limit}`,
  'deep cursor (starting_after)': (limit) => `/v1/call-logs?limit=${limit}&starting_after=${pick(ids)}`,
  'deep cursor (ending_before)': (limit) => `/v1/call-logs?limit=${limit}&ending_before=${pick(ids)}`,
  'agent_id filter, deep cursor': (limit) => {
    const agent = pick(agents)
    return `/v1/call-logs?limit=${limit}&agent_id=${agent}&starting_after=${pick(byAgent.get(agent) ?? [])}`
  },
}
const queries: Record<string, string[]> = {}
for (const limit of LIST_PAGE_LIMITS)
  for (const [kind, next] of Object.entries(kinds))
    queries[`${kind}, limit ${limit}`] = Array.from({ length: iterations }, () => next(limit))

const inProcess: Record<string, ReturnType<typeof summarize>> = {}
for (const [kind, urls] of Object.entries(queries)) {
  for (const url of urls.slice(0, 100)) await get(url)
  const durations: number[] = []
  for (const url of urls) {
    const started = performance.now()
    const response = await get(url)
    durations.push(performance.now() - started)
    if (response.status !== 200)
      throw new Error(`${url}: ${response.status} ${JSON.stringify(response.body)}`)
  }
  inProcess[kind] = summarize(durations)
}
gc()
const after = process.memoryUsage()

const server = createHttpServer(() => platform)
// Server-side time of each HTTP request (headers parsed to last byte written), by the kind the harness
// says it is timing (over IPC), so that the client's and the scheduler's share can be told apart.
let timing = ''
const serverSide = new Map<string, number[]>()
server.prependListener('request', (_req, res) => {
  const kind = timing
  const started = performance.now()
  res.once('finish', () => {
    const list = serverSide.get(kind) ?? []
    list.push(performance.now() - started)
    serverSide.set(kind, list)
  })
})
process.on('message', (message: { timing?: string; report?: boolean }) => {
  if (message.timing !== undefined) timing = message.timing
  const report = message.report
    ? Object.fromEntries([...serverSide].map(([kind, durations]) => [kind, summarize(durations)]))
    : undefined
  process.send?.({ ack: true, report })
})
const { port } = await listen(server, 0, '127.0.0.1')
const queriesFile = join(RESULTS_DIR, 'list-queries.json')
writeFileSync(queriesFile, JSON.stringify(queries))
console.log(
  `READY ${JSON.stringify({
    port,
    authorization,
    queriesFile,
    count,
    agents: agents.length,
    seedMs: round(seedMs, 0),
    rssMb: megabytes(memory.rss),
    heapUsedMb: megabytes(memory.heapUsed),
    rssAfterRequestsMb: megabytes(after.rss),
    inProcess,
  })}`,
)

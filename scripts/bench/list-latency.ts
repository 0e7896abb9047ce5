import { readFileSync, rmSync } from 'node:fs'
import { Agent } from 'node:http'
import { LIST_PAGE_LIMITS } from './cases.ts'
import { spawnChild } from './children.ts'
import { httpRequest } from './http-request.ts'
import { benchScript } from './paths.ts'
import { type LatencySummary, round, summarize } from './stats.ts'

/** List latency and memory with a large seeded store. */
export interface ListFigures {
  callLogs: number
  agents: number
  seedMs: number
  /** RSS after seeding and a GC, MB. */
  rssMb: number
  heapUsedMb: number
  rssAfterRequestsMb: number
  pageLimits: number[]
  /**
   * Per kind of page: latency through `platform.handle(...)`; over HTTP from the harness (one keep-alive
   * connection); and the server-side part of those HTTP requests (headers parsed to last byte written).
   */
  kinds: { kind: string; inProcess: LatencySummary; http: LatencySummary; httpServerSide: LatencySummary }[]
}

interface Ready {
  port: number
  authorization: string
  queriesFile: string
  count: number
  agents: number
  seedMs: number
  rssMb: number
  heapUsedMb: number
  rssAfterRequestsMb: number
  inProcess: Record<string, LatencySummary>
}

const rounded = (s: LatencySummary): LatencySummary => ({
  samples: s.samples,
  p50: round(s.p50, 3),
  p99: round(s.p99, 3),
  max: round(s.max, 3),
})

/** Seeds `count` call logs in a child process and times pages at random cursors, in-process and over HTTP. */
export async function measureListLatency(count: number, iterations: number): Promise<ListFigures> {
  const child = spawnChild(
    'list-latency',
    ['--expose-gc', ...benchScript('list-latency-child.ts'), String(count), String(iterations)],
    { ipc: true },
  )
  const tell = (message: { timing?: string; report?: boolean }) =>
    new Promise<{ report?: Record<string, LatencySummary> }>((resolve) => {
      child.process.once('message', resolve)
      child.process.send(message)
    })
  try {
    const ready = JSON.parse((await child.waitForLine(/^READY (.+)$/m, 300_000))[1] as string) as Ready
    const queries = JSON.parse(readFileSync(ready.queriesFile, 'utf8')) as Record<string, string[]>
    rmSync(ready.queriesFile, { force: true })
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const origin = `http://127.0.0.1:${ready.port}`
    const kinds: ListFigures['kinds'] = []
    for (const [kind, urls] of Object.entries(queries)) {
      const headers = { authorization: ready.authorization }
      await tell({ timing: '(warm-up)' })
      for (const url of urls.slice(0, 100)) await httpRequest(origin + url, { headers, agent })
      await tell({ timing: kind })
      const durations: number[] = []
      for (const url of urls) {
        const started = performance.now()
        const result = await httpRequest(origin + url, { headers, agent })
        durations.push(performance.now() - started)
        if (result.status !== 200) throw new Error(`${url}: ${result.status}`)
      }
      const inProcess = ready.inProcess[kind]
      if (!inProcess) throw new Error(`No in-process figures for ${kind}.`)
      kinds.push({
        kind,
        inProcess: rounded(inProcess),
        http: rounded(summarize(durations)),
        httpServerSide: inProcess,
      })
    }
    const { report = {} } = await tell({ report: true })
    for (const entry of kinds) {
      const serverSide = report[entry.kind]
      if (!serverSide) throw new Error(`No server-side figures for ${entry.kind}.`)
      entry.httpServerSide = rounded(serverSide)
    }
    agent.destroy()
    return {
      callLogs: ready.count,
      agents: ready.agents,
      seedMs: ready.seedMs,
      rssMb: ready.rssMb,
      heapUsedMb: ready.heapUsedMb,
      rssAfterRequestsMb: ready.rssAfterRequestsMb,
      pageLimits: [...LIST_PAGE_LIMITS],
      kinds,
    }
  } finally {
    await child.stop()
  }
}

import autocannon, { type Result } from 'autocannon'
import { rssMb } from './children.ts'
import { round, summarize } from './stats.ts'

/** Settings shared by every server and case, so that the figures compare. */
export interface LoadSettings {
  connections: number
  durationSec: number
  warmupSec: number
}

export interface LoadRequest {
  url: string
  method: string
  headers: Record<string, string>
  body?: string
}

/** What one server did under one case. */
export interface LoadFigures {
  requestsPerSec: number
  /** Latency in ms, from every response of the measured run (sub-ms resolution). */
  p50Ms: number
  p99Ms: number
  maxMs: number
  responses: number
  non2xx: number
  errors: number
  /** Resident set size of the server's process right after the run, MB. */
  rssMb: number
  statusCodes: Record<string, number>
}

function drive(
  request: LoadRequest,
  connections: number,
  durationSec: number,
  onLatency?: (ms: number) => void,
): PromiseLike<Result> {
  const instance = autocannon({
    url: request.url,
    method: request.method,
    headers: request.headers,
    body: request.body,
    connections,
    duration: durationSec,
    timeout: 10,
  })
  if (onLatency)
    instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => onLatency(ms))
  return instance
}

/** Warms up, then drives `request` for the measured duration with autocannon; latencies at full precision. */
export async function runLoad(
  request: LoadRequest,
  settings: LoadSettings,
  pid: number,
): Promise<LoadFigures> {
  if (settings.warmupSec > 0) await drive(request, settings.connections, settings.warmupSec)
  const latencies: number[] = []
  const started = performance.now()
  const result = await drive(request, settings.connections, settings.durationSec, (ms) => latencies.push(ms))
  const elapsedSec = (performance.now() - started) / 1000
  const latency = summarize(latencies)
  const statusCodes: Record<string, number> = {}
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = count
  return {
    requestsPerSec: round(latencies.length / elapsedSec, 0),
    p50Ms: round(latency.p50, 3),
    p99Ms: round(latency.p99, 3),
    maxMs: round(latency.max, 3),
    responses: latencies.length,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    rssMb: round(rssMb(pid), 1),
    statusCodes,
  }
}

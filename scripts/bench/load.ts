import autocannon, { type Result } from 'autocannon'
import { cpuMs, rssMb } from './children.ts'
import { round, summarize } from './stats.ts'

/** Settings shared by every server and case, so that the figures compare. */
export interface LoadSettings {
  connections: number
  /** Measured seconds per server and case, split over `rounds`. */
  durationSec: number
  warmupSec: number
  /** The servers take turns this many times, in rotating order, so a burst of other work hits all alike. */
  rounds: number
}

export interface LoadRequest {
  url: string
  method: string
  headers: Record<string, string>
  body?: string
  /**
   * Secret keys to take turns with, one request each (bearer `Authorization`): writes spread over several
   * accounts stay within each account's caps (1,000 agents) however long the run.
   */
  rotateKeys?: readonly string[]
}

/** One server under one request: where to send it and which process to watch. */
export interface LoadTarget {
  name: string
  request: LoadRequest
  pid: number
}

/** What one server did under one case. */
export interface LoadFigures {
  requestsPerSec: number
  /** Latency in ms, from every response of the measured rounds (sub-ms resolution). */
  p50Ms: number
  p99Ms: number
  maxMs: number
  responses: number
  non2xx: number
  errors: number
  /** CPU time the server's process used per response during the measured rounds, µs (Linux). */
  cpuUsPerRequest: number
  /** Resident set size of the server's process right after its last round, MB. */
  rssMb: number
  statusCodes: Record<string, number>
  /** Requests/s of each round, in the order the rounds ran (the servers took turns within each round). */
  roundRates: number[]
}

/** Drives one request with autocannon for `durationSec`, reporting every latency to `onLatency`. */
export function drive(
  request: LoadRequest,
  connections: number,
  durationSec: number,
  onLatency?: (ms: number) => void,
): PromiseLike<Result> {
  const keys = request.rotateKeys ?? []
  let turn = 0
  const instance = autocannon({
    url: request.url,
    method: request.method,
    headers: request.headers,
    body: request.body,
    connections,
    duration: durationSec,
    timeout: 10,
    ...(keys.length > 0 && {
      requests: [
        {
          setupRequest: (req: { headers?: Record<string, string> }) => {
            const key = keys[turn++ % keys.length]
            return { ...req, headers: { ...req.headers, authorization: `Bearer ${key}` } }
          },
        },
      ],
    }),
  })
  if (onLatency)
    instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => onLatency(ms))
  return instance
}

/**
 * Warms every target up, then drives each for `durationSec` in total with autocannon, in `rounds` turns
 * whose order rotates (A B C, B C A, C A B): on a shared machine a burst of other work then falls on
 * every server alike instead of on whichever ran at the time, and each round gives a ratio of its own
 * (`roundRates`). Latencies at full precision.
 */
export async function runLoad(
  targets: readonly LoadTarget[],
  settings: LoadSettings,
): Promise<Record<string, LoadFigures>> {
  const state = targets.map(() => ({
    latencies: [] as number[],
    seconds: 0,
    cpuMs: 0,
    non2xx: 0,
    errors: 0,
    statusCodes: {} as Record<string, number>,
    roundRates: [] as number[],
  }))
  if (settings.warmupSec > 0)
    for (const target of targets) await drive(target.request, settings.connections, settings.warmupSec)
  const roundSec = settings.durationSec / settings.rounds
  for (let r = 0; r < settings.rounds; r++) {
    for (let k = 0; k < targets.length; k++) {
      const i = (k + r) % targets.length
      const target = targets[i] as LoadTarget
      const into = state[i] as (typeof state)[number]
      const started = performance.now()
      const answeredBefore = into.latencies.length
      const cpuBefore = cpuMs(target.pid)
      const result = await drive(target.request, settings.connections, roundSec, (ms) =>
        into.latencies.push(ms),
      )
      const seconds = (performance.now() - started) / 1000
      into.seconds += seconds
      into.roundRates.push(round((into.latencies.length - answeredBefore) / seconds, 0))
      into.cpuMs += cpuMs(target.pid) - cpuBefore
      into.non2xx += result.non2xx
      into.errors += result.errors + result.timeouts
      for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {}))
        into.statusCodes[code] = (into.statusCodes[code] ?? 0) + count
    }
  }
  const figures: Record<string, LoadFigures> = {}
  targets.forEach((target, i) => {
    const {
      latencies,
      seconds,
      cpuMs: cpu,
      non2xx,
      errors,
      statusCodes,
      roundRates,
    } = state[i] as (typeof state)[number]
    const latency = summarize(latencies)
    figures[target.name] = {
      requestsPerSec: round(latencies.length / seconds, 0),
      p50Ms: round(latency.p50, 3),
      p99Ms: round(latency.p99, 3),
      maxMs: round(latency.max, 3),
      cpuUsPerRequest: round((cpu * 1000) / latencies.length, 0),
      responses: latencies.length,
      non2xx,
      errors,
      rssMb: round(rssMb(target.pid), 1),
      statusCodes,
      roundRates,
    }
  })
  return figures
}

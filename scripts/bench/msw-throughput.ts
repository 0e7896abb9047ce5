/**
 * The in-process path: the mock behind MSW's `setupServer` against a trivial MSW handler sending the same bytes
 * and headers, each in its own process (`msw-child.ts`), driven in turns by sequential `fetch` of
 * `GET /v1/agents`. Each round runs both, in alternating order, and gives its own ratio.
 */
import type { Child } from './children.ts'
import { spawnChild } from './children.ts'
import type { CapturedAnswer, MswMessage, MswRound } from './msw-child.ts'
import { benchScript } from './paths.ts'
import { type RatioSpread, ratioSpread } from './ratios.ts'
import { round, summarize } from './stats.ts'

/** One side of the MSW comparison. */
export interface MswSide {
  requestsPerSec: number
  /** CPU time per request, µs. */
  cpuUsPerRequest: number
  p50Ms: number
  p99Ms: number
  requests: number
}

/** The mock through MSW against a trivial MSW handler. */
export interface MswFigures {
  mock: MswSide
  trivial: MswSide
  /**
   * CPU time per request of the mock over the trivial handler's, per round (lower is better; the target is
   * 1.25): on a quiet machine the same as the wall time's, on a shared one far steadier.
   */
  costRatio: RatioSpread
  /** Wall time per request of the mock over the trivial handler's, per round. */
  wallRatio: RatioSpread
}

export interface MswSettings {
  /** Measured seconds per side, split over `rounds`. */
  durationSec: number
  rounds: number
  warmupSec: number
}

/** Sends `message` and resolves with the child's first answer holding `key`. */
function ask<T>(child: Child, message: MswMessage | undefined, key: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (answer: Record<string, unknown>) => {
      if (!(key in answer)) return
      child.process.off('message', onMessage)
      child.process.off('exit', onExit)
      resolve(answer[key] as T)
    }
    const onExit = () => reject(new Error(`The MSW bench's ${child.name} child exited.`))
    child.process.on('message', onMessage)
    child.process.once('exit', onExit)
    if (message) child.process.send(message)
  })
}

function side(rounds: readonly MswRound[]): MswSide {
  const durations = rounds.flatMap((r) => r.durations)
  const seconds = rounds.reduce((sum, r) => sum + r.seconds, 0)
  const cpuSeconds = rounds.reduce((sum, r) => sum + r.cpuSeconds, 0)
  const latency = summarize(durations)
  return {
    requestsPerSec: round(durations.length / seconds, 0),
    cpuUsPerRequest: round((cpuSeconds * 1e6) / durations.length, 1),
    p50Ms: round(latency.p50, 3),
    p99Ms: round(latency.p99, 3),
    requests: durations.length,
  }
}

/** Measures both sides in alternating rounds; the children are stopped however it ends. */
export async function measureMsw(settings: MswSettings): Promise<MswFigures> {
  const mock = spawnChild('msw-mock', [...benchScript('msw-child.ts'), 'mock'], { ipc: true })
  const trivial = spawnChild('msw-trivial', [...benchScript('msw-child.ts'), 'trivial'], { ipc: true })
  try {
    await Promise.all([ask(mock, undefined, 'ready'), ask(trivial, undefined, 'ready')])
    const captured = await ask<CapturedAnswer>(mock, { capture: true }, 'captured')
    await ask(trivial, { answer: captured }, 'ready')
    const runOn = (child: Child, ms: number) => ask<MswRound>(child, { run: ms }, 'round')
    await runOn(mock, settings.warmupSec * 1000)
    await runOn(trivial, settings.warmupSec * 1000)
    const roundMs = (settings.durationSec * 1000) / settings.rounds
    const mockRounds: MswRound[] = []
    const trivialRounds: MswRound[] = []
    for (let r = 0; r < settings.rounds; r++) {
      if (r % 2 === 0) {
        mockRounds.push(await runOn(mock, roundMs))
        trivialRounds.push(await runOn(trivial, roundMs))
      } else {
        trivialRounds.push(await runOn(trivial, roundMs))
        mockRounds.push(await runOn(mock, roundMs))
      }
    }
    const wall = (r: MswRound) => r.seconds / r.requests
    const cpu = (r: MswRound) => r.cpuSeconds / r.requests
    return {
      mock: side(mockRounds),
      trivial: side(trivialRounds),
      costRatio: ratioSpread(mockRounds.map(cpu), trivialRounds.map(cpu)),
      wallRatio: ratioSpread(mockRounds.map(wall), trivialRounds.map(wall)),
    }
  } finally {
    await Promise.all([mock.stop(), trivial.stop()])
  }
}

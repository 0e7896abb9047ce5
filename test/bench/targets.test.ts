import { describe, expect, it } from 'vitest'
import type { LoadFigures } from '../../scripts/bench/load.ts'
import type { BenchResults } from '../../scripts/bench/results.ts'
import { checkTargets } from '../../scripts/bench/targets.ts'

const load = (requestsPerSec: number, p99Ms: number): LoadFigures => ({
  requestsPerSec,
  p50Ms: p99Ms / 3,
  p99Ms,
  maxMs: p99Ms,
  cpuUsPerRequest: 100,
  responses: requestsPerSec * 5,
  non2xx: 0,
  errors: 0,
  rssMb: 100,
  statusCodes: { '200': requestsPerSec * 5 },
})

function results(mock: number, prism: number, bare: number, p99: number): Omit<BenchResults, 'targets'> {
  return {
    date: '2026-01-01T00:00:00Z',
    command: 'npm run bench',
    machine: { node: '20', cpus: 2, cpuModel: 'x', platform: 'linux-x64', loadAverage: [1, 1] },
    settings: {
      connections: 10,
      durationSec: 5,
      warmupSec: 1,
      rounds: 3,
      quick: false,
      mockEntry: 'built JS',
    },
    load: [
      {
        case: 'list-agents',
        label: 'GET /v1/agents',
        servers: { mock: load(mock, p99), prism: load(prism, 20), bare: load(bare, 1) },
        ratios: { mockOverPrism: mock / prism, mockOverBare: mock / bare },
      },
    ],
    startup: [{ label: 'mock (built JS)', runsMs: [250], medianMs: 250, minMs: 250 }],
  }
}

describe('checkTargets', () => {
  it.each([
    ['all met', results(6000, 1000, 10_000, 4), [true, true, true, true, true]],
    ['under 5x Prism', results(4000, 1000, 6000, 4), [false, true, true, true, true]],
    ['under half the bare server', results(6000, 1000, 13_000, 4), [true, false, true, true, true]],
    ['p99 at 5 ms', results(6000, 1000, 10_000, 5), [true, true, false, true, true]],
  ])('%s', (_name, input, want) => {
    expect(checkTargets(input).map((check) => check.met)).toEqual(want)
  })

  it('fails a load case in which the mock answered anything but 2xx (a cap reached, a rate limit)', () => {
    const input = results(6000, 1000, 10_000, 4)
    const mock = input.load[0]?.servers.mock as LoadFigures
    mock.statusCodes = { '201': 100, '409': 50_000 }
    const check = checkTargets(input).find((c) => c.target.includes('every answer'))
    expect(check?.met).toBe(false)
    expect(check?.measured).toContain('50000x 409')
  })
})

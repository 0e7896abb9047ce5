import { describe, expect, it } from 'vitest'
import type { LoadFigures } from '../../scripts/bench/load.ts'
import { ratioSpread } from '../../scripts/bench/ratios.ts'
import type { BenchResults, LoadRow } from '../../scripts/bench/results.ts'
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
  roundRates: [requestsPerSec, requestsPerSec],
})

/** A load row whose rounds all give the same rates. */
function row(
  id: LoadRow['case'],
  label: string,
  mock: number,
  prism: number,
  bare: number,
  p99: number,
): LoadRow {
  return {
    case: id,
    label,
    servers: { mock: load(mock, p99), prism: load(prism, 20), bare: load(bare, 1) },
    ratios: {
      mockOverPrism: ratioSpread([mock, mock], [prism, prism]),
      mockOverBare: ratioSpread([mock, mock], [bare, bare]),
    },
  }
}

function results(
  agents: { mock: number; prism: number; bare: number; p99: number },
  user = { mock: 6000, bare: 9000, p99: 1 },
  mswCostRatio = 1.1,
): Omit<BenchResults, 'targets'> {
  return {
    date: '2026-01-01T00:00:00Z',
    command: 'npm run bench',
    machine: { node: '20', cpus: 2, cpuModel: 'x', platform: 'linux-x64', loadAverage: [1, 1] },
    settings: {
      connections: 10,
      durationSec: 5,
      warmupSec: 1,
      rounds: 2,
      quick: false,
      mockEntry: 'built JS',
    },
    load: [
      row('list-agents', 'GET /v1/agents', agents.mock, agents.prism, agents.bare, agents.p99),
      row('get-user', 'GET /v1/user', user.mock, 500, user.bare, user.p99),
    ],
    msw: {
      mock: { requestsPerSec: 1000, cpuUsPerRequest: 900, p50Ms: 1, p99Ms: 2, requests: 5000 },
      trivial: { requestsPerSec: 1100, cpuUsPerRequest: 800, p50Ms: 1, p99Ms: 2, requests: 5500 },
      costRatio: ratioSpread([mswCostRatio, mswCostRatio], [1, 1]),
      wallRatio: ratioSpread([1, 1], [1, 1]),
    },
    startup: [{ label: 'mock (built JS)', runsMs: [250], medianMs: 250, minMs: 250 }],
  }
}

const metOf = (input: Omit<BenchResults, 'targets'>, target: RegExp) =>
  checkTargets(input).find((check) => target.test(check.target))?.met

describe('checkTargets', () => {
  const good = { mock: 12_000, prism: 900, bare: 14_000, p99: 1.5 }
  it.each([
    ['GET /v1/agents at 12x Prism', results(good), /agents: mock >= 12x Prism/, true],
    ['GET /v1/agents under 12x Prism', results({ ...good, prism: 1100 }), /agents: mock >= 12x Prism/, false],
    [
      'GET /v1/agents at 0.8x its bare server',
      results({ ...good, bare: 15_000 }),
      /agents: mock >= 0.8x bare/,
      true,
    ],
    [
      'GET /v1/agents under 0.8x its bare server',
      results({ ...good, bare: 15_100 }),
      /agents: mock >= 0.8x bare/,
      false,
    ],
    [
      'GET /v1/user at 0.6x its bare server',
      results(good, { mock: 6000, bare: 10_000, p99: 1 }),
      /user: mock >= 0.6x bare/,
      true,
    ],
    [
      'GET /v1/user under 0.6x its bare server',
      results(good, { mock: 5900, bare: 10_000, p99: 1 }),
      /user: mock >= 0.6x bare/,
      false,
    ],
    ['a read p99 under 2 ms', results(good), /agents: mock p99 < 2 ms/, true],
    ['a read p99 of 2 ms', results({ ...good, p99: 2 }), /agents: mock p99 < 2 ms/, false],
    ['MSW at 1.25x a trivial handler', results(good, undefined, 1.25), /MSW .* <= 1.25x/, true],
    ['MSW over 1.25x a trivial handler', results(good, undefined, 1.3), /MSW .* <= 1.25x/, false],
  ])('%s', (_name, input, target, met) => {
    expect(metOf(input, target)).toBe(met)
  })

  it('judges a ratio by the median of its rounds, and shows their spread', () => {
    const input = results(good)
    const agents = input.load[0] as LoadRow
    agents.ratios.mockOverBare = ratioSpread([8, 9, 4], [10, 10, 10])
    const check = checkTargets(input).find((c) => /agents: mock >= 0.8x bare/.test(c.target))
    expect(check?.met).toBe(true)
    expect(check?.measured).toBe('0.8x (rounds 0.4-0.9)')
  })

  it('fails a load case in which the mock answered anything but 2xx (a cap reached, a rate limit)', () => {
    const input = results(good)
    const mock = input.load[0]?.servers.mock as LoadFigures
    mock.statusCodes = { '201': 100, '409': 50_000 }
    const check = checkTargets(input).find((c) => c.target.includes('every answer'))
    expect(check?.met).toBe(false)
    expect(check?.measured).toContain('50000x 409')
  })
})

describe('ratioSpread', () => {
  it('gives each round its ratio, their median and spread', () => {
    expect(ratioSpread([10, 30, 20], [10, 10, 10])).toEqual({ median: 2, min: 1, max: 3, rounds: [1, 3, 2] })
    expect(ratioSpread([7995], [10_000]).median).toBe(0.7995)
    // An even count of rounds: the mean of the two middle ones, not the lower.
    expect(ratioSpread([1, 4, 2, 3], [1, 1, 1, 1]).median).toBe(2.5)
  })

  it('says nothing (NaN) when a round is missing', () => {
    expect(ratioSpread([10, 20], [10]).median).toBeNaN()
    expect(ratioSpread([], []).median).toBeNaN()
  })
})

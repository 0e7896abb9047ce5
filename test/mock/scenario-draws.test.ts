import { describe, expect, it } from 'vitest'
import { answerProblems } from './support/contract-answer.ts'
import { AGENT_BODY, type ScenarioHarness, scenarioHarness } from './support/scenario-harness.ts'

/** Sends `count` requests one after the other and returns the responses. */
async function sendMany(h: ScenarioHarness, count: number, path = '/user') {
  const responses = []
  for (let i = 0; i < count; i++) responses.push(await h.send('GET', path))
  return responses
}

/** Which of `count` requests a scenario with `probability` hits, on a fresh mock of `seed`. */
async function hits(seed: number, probability: number, count: number): Promise<boolean[]> {
  const h = await scenarioHarness({ seed })
  await h.addScenario({ operation: 'getUser', status: 503, probability })
  return (await sendMany(h, count)).map((r) => r.status === 503)
}

/** The delays a scenario draws for `count` requests (read from the engine's effect: nothing waits). */
async function delays(delay: Record<string, unknown>, count: number, seed = 1): Promise<number[]> {
  const h = await scenarioHarness({ seed })
  await h.addScenario({ operation: 'getUser', delay })
  return (await sendMany(h, count)).map((r) => r.effect?.delayMs as number)
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length
const sd = (values: number[]) => {
  const m = mean(values)
  return Math.sqrt(values.reduce((a, b) => a + (b - m) ** 2, 0) / (values.length - 1))
}

describe('times', () => {
  it('applies a scenario exactly times times, counting down, then it is gone', async () => {
    const h = await scenarioHarness()
    const scenario = await h.addScenario({ operation: 'getUser', status: 500, times: 3 })
    const remaining: (number | null)[] = []
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) {
      statuses.push((await h.send('GET', '/user')).status)
      remaining.push((await h.scenarios()).find((s) => s.id === scenario.id)?.remaining ?? null)
    }
    expect(statuses).toEqual([500, 500, 500, 200, 200, 200])
    expect(remaining).toEqual([2, 1, null, null, null, null])
    expect((await h.control('GET', `/scenarios/${scenario.id}`)).status).toBe(404)
  })

  it('counts only the requests it applied to, not those another scenario or no match took', async () => {
    const h = await scenarioHarness()
    const counted = await h.addScenario({ operation: '*', status: 500, times: 2 })
    await h.addScenario({ operation: 'listAgents', status: 503, times: 3 })
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await h.send('GET', '/agents')).status)
    statuses.push((await h.send('GET', '/user')).status, (await h.send('GET', '/user')).status)
    statuses.push((await h.send('GET', '/user')).status)
    expect(statuses).toEqual([503, 503, 503, 500, 500, 200, 200])
    expect((await h.scenarios()).find((s) => s.id === counted.id)).toBeUndefined()
  })
})

describe('probability', () => {
  it('never applies at 0 and always at 1', async () => {
    expect((await hits(1, 0, 100)).filter(Boolean)).toHaveLength(0)
    expect((await hits(1, 1, 100)).filter(Boolean)).toHaveLength(100)
  })

  it('applies about as often as asked over a seeded sample (within 4 standard deviations)', async () => {
    for (const probability of [0.1, 0.3, 0.75]) {
      const count = 2000
      const hit = (await hits(7, probability, count)).filter(Boolean).length
      const deviation = Math.sqrt(count * probability * (1 - probability))
      expect(Math.abs(hit - count * probability), `p=${probability}: ${hit}`).toBeLessThan(4 * deviation)
    }
  })

  it('draws the same sequence for the same seed and another for another seed', async () => {
    const first = await hits(42, 0.5, 200)
    expect(await hits(42, 0.5, 200)).toEqual(first)
    expect(await hits(43, 0.5, 200)).not.toEqual(first)
  })

  it('gives each scenario its own draws, by its place in the order of creation', async () => {
    const h = await scenarioHarness({ seed: 42 })
    // A first scenario that never matches getUser still takes the first place in the order of creation.
    await h.addScenario({ operation: 'listAgents', status: 500 })
    await h.addScenario({ operation: 'getUser', status: 503, probability: 0.5 })
    const second = (await sendMany(h, 200)).map((r) => r.status === 503)
    expect(second).not.toEqual(await hits(42, 0.5, 200))
  })

  it('counts times in applications, not draws', async () => {
    const h = await scenarioHarness({ seed: 3 })
    await h.addScenario({ operation: 'getUser', status: 500, times: 5, probability: 0.5 })
    const statuses = (await sendMany(h, 60)).map((r) => r.status)
    expect(statuses.filter((s) => s === 500)).toHaveLength(5)
    expect(statuses.slice(-10)).toEqual(Array(10).fill(200))
  })
})

describe('delay', () => {
  it('holds back the real answer: the operation runs, and its answer carries the delay', async () => {
    const h = await scenarioHarness()
    const scenario = await h.addScenario({ operation: 'createAgent', delay: { type: 'fixed', ms: 250 } })
    const created = await h.send('POST', '/agents', { body: AGENT_BODY })
    expect(created.status).toBe(201)
    expect(created.effect).toEqual({ delayMs: 250 })
    expect(created.headers['mock-scenario']).toBe(scenario.id)
    expect((await h.send('GET', `/agents/${(created.body as { id: string }).id}`)).status).toBe(200)
    const journal = await h.control('GET', `/journal?account_id=${h.accountId}&limit=2`)
    expect(journal.body.data[1].scenario).toEqual({ id: scenario.id, delay_ms: 250, network_error: null })
    expect(journal.body.data[0].scenario).toBeNull()
  })

  it('holds back an injected answer too', async () => {
    const h = await scenarioHarness()
    await h.addScenario({ operation: 'getUser', status: 502, delay: { type: 'fixed', ms: 40 } })
    const response = await h.send('GET', '/user')
    expect(response.status).toBe(502)
    expect(response.effect).toEqual({ delayMs: 40 })
  })

  it('draws uniform delays between the bounds, evenly (Kolmogorov-Smirnov over 2000 seeded draws)', async () => {
    const drawn = await delays({ type: 'uniform', min_ms: 100, max_ms: 500 }, 2000)
    expect(Math.min(...drawn)).toBeGreaterThanOrEqual(100)
    expect(Math.max(...drawn)).toBeLessThanOrEqual(500)
    const sorted = [...drawn].sort((a, b) => a - b)
    let distance = 0
    sorted.forEach((value, i) => {
      const expected = (value - 100) / 400
      distance = Math.max(
        distance,
        Math.abs((i + 1) / sorted.length - expected),
        Math.abs(i / sorted.length - expected),
      )
    })
    // The 5% critical value for n = 2000 is 1.36 / sqrt(2000) = 0.030.
    expect(distance).toBeLessThan(0.03)
    expect(Math.abs(median(drawn) - 300)).toBeLessThan(20)
  })

  it('draws lognormal delays with the asked median and spread (2000 seeded draws)', async () => {
    const drawn = await delays({ type: 'lognormal', median_ms: 300, sigma: 0.5 }, 2000)
    const logs = drawn.map(Math.log)
    expect(Math.abs(median(drawn) / 300 - 1)).toBeLessThan(0.05)
    expect(Math.abs(mean(logs) - Math.log(300))).toBeLessThan(0.05)
    expect(Math.abs(sd(logs) / 0.5 - 1)).toBeLessThan(0.08)
    // A lognormal is skewed: its mean lies above its median, at median * exp(sigma^2 / 2).
    expect(Math.abs(mean(drawn) / (300 * Math.exp(0.125)) - 1)).toBeLessThan(0.05)
  })

  it('caps a drawn delay at 30 s', async () => {
    const drawn = await delays({ type: 'lognormal', median_ms: 20_000, sigma: 1.5 }, 200)
    expect(Math.max(...drawn)).toBe(30_000)
    expect(Math.min(...drawn)).toBeLessThan(20_000)
  })

  it('keeps a fixed delay exactly, in whole milliseconds', async () => {
    expect(new Set(await delays({ type: 'fixed', ms: 120 }, 20))).toEqual(new Set([120]))
    expect(new Set(await delays({ type: 'fixed', ms: 0.4 }, 3))).toEqual(new Set([0]))
  })
})

describe('network_error', () => {
  it.each(['reset', 'timeout'] as const)(
    '%s: the operation does not run, and an adapter that cannot drop connections gets a 503 naming it',
    async (network) => {
      const h = await scenarioHarness()
      const agent = (await h.send('POST', '/agents', { body: AGENT_BODY })).body as { id: string }
      const scenario = await h.addScenario({
        operation: 'deleteAgent',
        network_error: network,
        delay: { type: 'fixed', ms: 15 },
      })
      const response = await h.send('DELETE', `/agents/${agent.id}`)
      expect(response.effect).toEqual({ delayMs: 15, network })
      expect(response.status).toBe(503)
      expect(answerProblems('deleteAgent', 503, response.body)).toEqual([])
      expect((response.body as { error: { message: string } }).error.message).toContain(
        network === 'reset' ? 'drops the connection' : 'leaves the request unanswered',
      )
      expect(response.headers['mock-scenario']).toBe(scenario.id)
      expect((await h.send('GET', `/agents/${agent.id}`)).status).toBe(200)
      const journal = await h.control('GET', `/journal?account_id=${h.accountId}&limit=2`)
      expect(journal.body.data[1].scenario).toEqual({ id: scenario.id, delay_ms: 15, network_error: network })
    },
  )
})

describe('the draws of a seed', () => {
  // Pinned: the same seed must give the same draws in every version, so a recorded run replays.
  it('are the same in every version: seed 1, the first scenarios', async () => {
    const h = await scenarioHarness({ seed: 1 })
    await h.addScenario({ operation: 'getUser', delay: { type: 'uniform', min_ms: 0, max_ms: 1000 } })
    const drawn = (await sendMany(h, 5)).map((r) => r.effect?.delayMs)
    await h.addScenario({ operation: 'listAgents', status: 503, probability: 0.5 })
    const pattern = (await sendMany(h, 12, '/agents')).map((r) => (r.status === 503 ? 1 : 0)).join('')
    expect(drawn).toEqual([37, 2, 546, 196, 106])
    expect(pattern).toBe('111000000011')
  })

  it('are counted in the state, one per matching request, hit or miss', async () => {
    const h = await scenarioHarness({ seed: 1 })
    const scenario = await h.addScenario({ operation: 'getUser', status: 503, probability: 0.5 })
    await sendMany(h, 7)
    await sendMany(h, 2, '/agents')
    const records = new Map(h.platform.snapshot().tables.scenarios ?? [])
    expect(records.get(scenario.id)).toMatchObject({ draws: 7, sequence: 1 })
    expect(records.get('sequence')).toBe(1)
  })
})

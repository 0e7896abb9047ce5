import { describe, expect, it } from 'vitest'
import { allChecks } from '../contracts/checks/index.ts'
import type { ContractCheck } from '../contracts/checks/types.ts'
import { createContract } from '../contracts/contract/contract.ts'
import type { CheckOutcome } from '../contracts/runner/outcome.ts'
import { runChecks } from '../contracts/runner/run-checks.ts'
import { scheduleChecks } from '../contracts/runner/schedule-checks.ts'
import { openSession } from '../contracts/runner/session.ts'
import { createMockPlatform } from '../mocks/platform.ts'
import { engineFetch } from './mutants/engine-fetch.ts'

const BASE_URL = 'http://lanes.test/v1'
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A check that only takes time (`ms`), for the scheduler. */
const timed = (id: string, ms: number, exclusive = false): ContractCheck => ({
  id,
  area: 'responses',
  group: 'Scheduling',
  title: id,
  exclusive,
  run: async () => void (await sleep(ms)),
})

/** A session stand-in that records which checks run at the same time, and on which lane. */
function recordingSession() {
  const running = new Set<string>()
  const overlaps: string[][] = []
  const lanes: Record<string, number> = {}
  return {
    overlaps,
    lanes,
    async run(check: ContractCheck, options: { lane?: number; alongside?: boolean } = {}) {
      running.add(check.id)
      overlaps.push([...running].sort())
      lanes[check.id] = options.lane ?? 0
      await check.run({} as never)
      running.delete(check.id)
      return { check, status: 'passed', notes: [], durationMs: 0, requests: 0, cacheHits: 0 } as CheckOutcome
    },
    stillReachable: async () => undefined,
  }
}

describe('scheduleChecks', () => {
  const checks = [
    timed('a', 40),
    timed('b', 5),
    timed('c', 25),
    timed('d', 5),
    timed('clock-1', 10, true),
    timed('e', 5),
    timed('f', 5),
    timed('clock-2', 10, true),
  ]

  it('runs checks at the same time on free lanes, each exclusive check alone, and reports in the suite order', async () => {
    const session = recordingSession()
    const told: string[] = []
    const { outcomes } = await scheduleChecks(session, checks, {
      lanes: 3,
      onOutcome: (outcome) => told.push(outcome.check.id),
    })
    const order = checks.map((c) => c.id)
    expect(outcomes.map((o) => o.check.id)).toEqual(order)
    expect(told).toEqual(order)
    expect(Math.max(...session.overlaps.map((o) => o.length))).toBe(3)
    for (const id of ['clock-1', 'clock-2']) {
      expect(session.overlaps.filter((o) => o.includes(id))).toEqual([[id]])
      expect(session.lanes[id]).toBe(0)
    }
    // Nothing listed after an exclusive check starts before it ends.
    expect(session.overlaps.some((o) => o.includes('e') && o.some((id) => 'abcd'.includes(id)))).toBe(false)
  })

  it('runs one check at a time, in order, with one lane', async () => {
    const session = recordingSession()
    const { outcomes } = await scheduleChecks(session, checks, { lanes: 1 })
    expect(outcomes.map((o) => o.check.id)).toEqual(checks.map((c) => c.id))
    expect(Math.max(...session.overlaps.map((o) => o.length))).toBe(1)
  })

  it('starts no check after a failure with bail, and reports what ran in order', async () => {
    const session = recordingSession()
    const failing = { ...timed('x', 1), run: async () => Promise.reject(new Error('boom')) }
    const run = session.run
    session.run = async (check, options) => {
      const outcome = await run(check, options).catch(
        () => ({ check, status: 'failed', notes: [] }) as unknown as CheckOutcome,
      )
      return outcome
    }
    const { outcomes } = await scheduleChecks(
      session,
      [timed('a', 30), failing, timed('b', 1), timed('c', 1), timed('d', 1)],
      { lanes: 2, bail: true },
    )
    expect(outcomes.map((o) => o.check.id)).toEqual(['a', 'x'])
  })
})

describe('a provisioned run on several lanes', () => {
  const contract = createContract()

  it('refuses a clock move from a check that runs beside others and is not marked exclusive', async () => {
    const platform = await createMockPlatform({ seedSize: { callLogs: 20 } })
    const session = await openSession({
      baseUrl: BASE_URL,
      provision: 'mock',
      destructive: true,
      fetch: engineFetch(() => platform, BASE_URL),
    })
    const mover: ContractCheck = {
      ...timed('resources/clock/mover', 0),
      run: async (ctx) => void (await ctx.mock?.advanceClock(1)),
    }
    const beside = await session.run(mover, { alongside: true })
    expect(beside.status).toBe('failed')
    expect(beside.failure?.actual).toMatch(
      /resources\/clock\/mover moves the mock's clock while other checks run: a check that moves the clock must be marked exclusive/,
    )
    expect((await session.run(mover)).status).toBe('passed')
    await session.close()
  })

  it('runs every check that moves the clock alone (none fails for moving it) and removes every lane', async () => {
    const platform = await createMockPlatform({ seedSize: { callLogs: 50 } })
    const accounts = async () =>
      (
        (await (
          await engineFetch(() => platform, BASE_URL)(`${BASE_URL.replace('/v1', '')}/_mock/accounts`)
        ).json()) as {
          data: unknown[]
        }
      ).data.length
    const before = await accounts()
    const lanes: number[] = []
    const result = await runChecks(
      {
        baseUrl: BASE_URL,
        provision: 'mock',
        destructive: true,
        concurrency: 4,
        exploreSequences: 5,
        fetch: engineFetch(() => platform, BASE_URL),
      },
      {
        onOpen: (session) => {
          const open = session.openLanes
          session.openLanes = async (count) => {
            const made = await open(count)
            lanes.push(made)
            return made
          }
        },
      },
    )
    expect(lanes).toEqual([4])
    // In-process, the webhooks area is not applicable (a custom fetch receives no webhook): all else passes.
    const notPassed = result.outcomes.filter((o) => o.status !== 'passed')
    expect(notPassed.map((o) => `${o.check.id} ${o.status}`)).toEqual(
      allChecks(contract)
        .filter((c) => c.area === 'webhooks')
        .map((c) => `${c.id} not-applicable`),
    )
    expect(result.outcomes.map((o) => o.check.id)).toEqual(allChecks(contract).map((c) => c.id))
    expect(result.teardown.problems).toEqual([])
    expect(await accounts()).toBe(before)
  }, 120_000)
})

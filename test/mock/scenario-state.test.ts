import { describe, expect, it } from 'vitest'
import { checkSavedState, SavedStateError } from '../../mocks/engine/saved-state.ts'
import type { StateSnapshot } from '../../mocks/engine/state/change-set.ts'
import { createMemoryStore } from '../../mocks/engine/state/store.ts'
import { v1Document } from '../../openapi/generated/v1.document.ts'
import { type ScenarioHarness, scenarioHarness } from './support/scenario-harness.ts'

async function statuses(h: ScenarioHarness, count: number, key = h.key) {
  const out: number[] = []
  for (let i = 0; i < count; i++) out.push((await h.send('GET', '/user', { key })).status)
  return out
}

describe('scenarios as part of the state', () => {
  it('survive a restart from a saved state, with their uses, and go on drawing as if nothing happened', async () => {
    const steady = await scenarioHarness({ seed: 5 })
    await steady.addScenario({ operation: 'getUser', status: 503, probability: 0.5, times: 30 })
    const expected = await statuses(steady, 80)

    const first = await scenarioHarness({ seed: 5 })
    const scenario = await first.addScenario({
      operation: 'getUser',
      status: 503,
      probability: 0.5,
      times: 30,
    })
    const before = await statuses(first, 40)
    const saved = first.platform.snapshot()
    // Another process starting from the saved state (another --seed too: the state's seed decides the draws).
    const second = await scenarioHarness({ seed: 99, store: createMemoryStore(saved) })
    const listed = (await second.scenarios()).find((s) => s.id === scenario.id)
    expect(listed?.uses).toBe(before.filter((s) => s === 503).length)
    const after = await statuses(second, 40, first.key)
    expect([...before, ...after]).toEqual(expected)
    expect(expected.filter((s) => s === 503)).toHaveLength(30)
    // A scenario created after the restart is the second of the order of creation, as it would have been.
    await steady.addScenario({ operation: 'listAgents', status: 502, probability: 0.5 })
    await second.addScenario({ operation: 'listAgents', status: 502, probability: 0.5 })
    const agents = async (h: ScenarioHarness, key: string) => {
      const out: number[] = []
      for (let i = 0; i < 20; i++) out.push((await h.send('GET', '/agents', { key })).status)
      return out
    }
    expect(await agents(second, first.key)).toEqual(await agents(steady, steady.key))
  })

  it('draw again from the start after a reset', async () => {
    const h = await scenarioHarness({ seed: 11 })
    const demo = h.platform.demo.secretKey as string
    await h.addScenario({ operation: 'getUser', status: 503, probability: 0.5 })
    const first = await statuses(h, 30, demo)
    await h.control('POST', '/reset')
    await h.addScenario({ operation: 'getUser', status: 503, probability: 0.5 })
    expect(await statuses(h, 30, demo)).toEqual(first)
  })
})

describe('a saved state with scenarios', () => {
  const savedWith = async (change: (records: [string, unknown][]) => [string, unknown][]) => {
    const h = await scenarioHarness()
    await h.addScenario({ operation: 'getUser', status: 503, times: 2 })
    const snapshot = h.platform.snapshot()
    const tables = { ...snapshot.tables, scenarios: change(snapshot.tables.scenarios ?? []) }
    return { ...snapshot, tables } as StateSnapshot
  }

  it('is accepted as saved', async () => {
    const saved = await savedWith((records) => records)
    expect(() => checkSavedState(saved, v1Document)).not.toThrow()
  })

  it.each([
    ['a use count that is not a number', 'uses', (r: Record<string, unknown>) => ({ ...r, uses: 'two' })],
    ['a probability over 1', 'probability', (r: Record<string, unknown>) => ({ ...r, probability: 2 })],
    [
      'an unknown network error',
      'network_error',
      (r: Record<string, unknown>) => ({ ...r, network_error: 'dns' }),
    ],
    ['no draw count', 'draws', (r: Record<string, unknown>) => ({ ...r, draws: undefined })],
    ['an id other than its key', 'id', (r: Record<string, unknown>) => ({ ...r, id: 'scn_other' })],
  ])('is refused with %s, naming table, record and field', async (_name, field, broken) => {
    const saved = await savedWith((records) =>
      records.map(([key, value]) =>
        key.startsWith('scn_') ? [key, broken(value as Record<string, unknown>)] : [key, value],
      ),
    )
    const id = (saved.tables.scenarios ?? []).find(([key]) => key.startsWith('scn_'))?.[0]
    expect(() => checkSavedState(saved, v1Document)).toThrow(SavedStateError)
    expect(() => checkSavedState(saved, v1Document)).toThrow(
      `table 'scenarios', record '${id}', field '${field}'`,
    )
  })

  it('is refused with a creation counter that is no count', async () => {
    const saved = await savedWith((records) =>
      records.map(([key, value]) => (key === 'sequence' ? [key, -1] : [key, value])),
    )
    expect(() => checkSavedState(saved, v1Document)).toThrow("table 'scenarios', record 'sequence'")
  })
})

describe('how a use of a scenario is kept', () => {
  it('durably for a scenario with times (a promise), as bookkeeping for one without', async () => {
    const h = await scenarioHarness()
    await h.addScenario({ operation: 'getUser', delay: { type: 'fixed', ms: 1 } })
    await h.addScenario({ operation: 'listAgents', status: 503, times: 5 })
    const before = h.platform.changes()
    await h.send('GET', '/user')
    // Soft changes do not move the durable version (a store may write them a moment later).
    expect(h.platform.changes()).toBe(before)
    await h.send('GET', '/agents')
    expect(h.platform.changes()).toBe(before + 1)
    expect((await h.scenarios()).map((s) => s.uses)).toEqual([1, 1])
  })
})

describe('a journal saved before scenarios existed', () => {
  it('lists its entries with scenario null', async () => {
    const h = await scenarioHarness()
    await h.send('GET', '/user')
    const snapshot = h.platform.snapshot()
    const journal = (snapshot.tables.journal ?? []).map(([key, value]) => {
      const { scenario: _scenario, ...older } = value as Record<string, unknown>
      return [key, older] as [string, unknown]
    })
    const restored = await scenarioHarness({
      store: createMemoryStore({ ...snapshot, tables: { ...snapshot.tables, journal } }),
    })
    const listed = await restored.control('GET', `/journal?account_id=${h.accountId}`)
    expect(listed.status).toBe(200)
    expect(listed.body.data[0]).toMatchObject({ path: '/v1/user', scenario: null })
  })
})

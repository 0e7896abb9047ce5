import type { components } from '../../../openapi/generated/mock-control.types.ts'
import { RecordMap } from '../record-map.ts'
import type { EngineState } from '../state/state.ts'

type Schemas = components['schemas']

/** A scenario as the control plane shows it (`openapi/mock-control.yaml`). */
export type Scenario = Schemas['Scenario']
/** What `POST /_mock/scenarios` takes. */
export type ScenarioInput = Schemas['ScenarioCreateRequest']
export type ScenarioDelay = Schemas['ScenarioDelay']

/**
 * A scenario as its table keeps it: the contract's fields but the derived `remaining`, plus what makes its
 * random draws the same in every process: its place in the order of creation and how many draws it made.
 */
export interface StoredScenario extends Omit<Scenario, 'remaining' | 'object'> {
  /** 1 for the first scenario created since the last reset, 2 for the next, ... */
  sequence: number
  /** Matching requests that drew for it so far: the index of its next draw. */
  draws: number
}

/** The state table of the scenarios: records by scenario id, and the creation counter under `sequence`. */
export const SCENARIOS_TABLE = 'scenarios'
/** The key of the creation counter in the scenarios table. */
export const SEQUENCE_KEY = 'sequence'

/**
 * The active scenarios, a table of the engine's state (so they are saved, shared and reset like the rest).
 * Adding and removing a scenario, and each use of one with `times`, are durable changes: `times` stays exact
 * across restarts and processes. The uses and draws of a scenario without `times` are soft (bookkeeping,
 * like rate-limit windows: losing the last second of them in a crash breaks no promise), so a slow API does
 * not cost a durable write per request.
 */
export function createScenarioTable(state: EngineState) {
  const records = new RecordMap<StoredScenario>((key, value, before, soft) =>
    state.record(SCENARIOS_TABLE, key, value, before, soft),
  )
  let sequence = 0

  state.register(SCENARIOS_TABLE, {
    apply(key, value) {
      if (key === SEQUENCE_KEY) sequence = typeof value === 'number' ? value : 0
      else records.apply(key, value as StoredScenario | null)
    },
    entries: () => [[SEQUENCE_KEY, sequence], ...records.entries()],
    clear() {
      records.clear()
      sequence = 0
    },
  })

  return {
    /** How many scenarios are active. */
    size: () => records.size,
    /** Stores a new scenario as the newest one; `sequence`, `draws` and `uses` are given here. */
    add(scenario: Omit<StoredScenario, 'sequence' | 'draws' | 'uses'>): StoredScenario {
      const before = sequence
      sequence = before + 1
      state.record(SCENARIOS_TABLE, SEQUENCE_KEY, sequence, before)
      const stored: StoredScenario = { ...scenario, uses: 0, sequence, draws: 0 }
      records.put(stored.id, stored)
      return stored
    },
    get: (id: string) => records.get(id),
    /** Every active scenario, newest first: the order in which they are tried. */
    newestFirst: (): StoredScenario[] => [...records.values()].sort((a, b) => b.sequence - a.sequence),
    /** Replaces a scenario's record (records are never changed in place); `soft`: bookkeeping only. */
    replace: (scenario: StoredScenario, soft = false) => records.put(scenario.id, scenario, soft),
    remove: (id: string) => records.delete(id),
    /** Removes every scenario; answers how many there were. */
    clear(): number {
      const ids = [...records.keys()]
      for (const id of ids) records.delete(id)
      return ids.length
    },
  }
}

export type ScenarioTable = ReturnType<typeof createScenarioTable>

/** The control plane's view of a stored scenario. */
export function presentScenario(stored: StoredScenario): Scenario {
  return {
    id: stored.id,
    object: 'scenario',
    operation: stored.operation,
    account_id: stored.account_id,
    key_id: stored.key_id,
    status: stored.status,
    delay: stored.delay,
    network_error: stored.network_error,
    times: stored.times,
    probability: stored.probability,
    uses: stored.uses,
    remaining: stored.times === null ? null : stored.times - stored.uses,
    created_at: stored.created_at,
  }
}

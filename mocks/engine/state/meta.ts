import { RecordMap } from '../record-map.ts'
import type { EngineState } from './state.ts'

/** The state table of facts about the state itself; `demo` names the seeded demo account and its keys. */
export const META_TABLE = 'meta'

/** The seeded demo account, its two keys, and the seed it was made from. */
export interface DemoIds {
  account_id: string
  secret_key_id: string
  publishable_key_id: string
  seed: number
}

/** The `meta` table: the demo account's ids, saved with the state so that a restart finds them. */
export function createMeta(state: EngineState) {
  const records = new RecordMap<unknown>((key, value, before, soft) =>
    state.record(META_TABLE, key, value, before, soft),
  )
  state.register(META_TABLE, {
    apply: (key, value) => records.apply(key, value),
    entries: () => records.entries(),
    clear: () => records.clear(),
  })
  return {
    demo: () => records.get('demo') as DemoIds | undefined,
    setDemo: (ids: DemoIds) => records.put('demo', ids),
  }
}

export type Meta = ReturnType<typeof createMeta>

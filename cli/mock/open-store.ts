import type { StateStore } from '../../mocks/engine/state/store.ts'
import { createMemoryStore } from '../../mocks/engine/state/store.ts'
import { createFileStore } from '../../mocks/stores/file/file-store.ts'
import type { StoreSpec } from './store-spec.ts'

/** A store as the command opened it, and what to say about it at start. */
export interface OpenedStore {
  store: StateStore
  /** Whether the state came from the store (not freshly seeded); known once the platform is created. */
  restored(): boolean
  /** One line for the banner. */
  summary(): string
  /** What loading found that the user should know (a torn record dropped, an older file converted). */
  notes(): string[]
  /** What the store cost, said when the mock stops (a shared store: its round trips per request). */
  report?(): string
}

/** Opens the store `--store` / `--state-file` names. */
export async function openStore(spec: StoreSpec): Promise<OpenedStore> {
  if (spec.kind === 'file') {
    const store = createFileStore(spec.path)
    return {
      store,
      restored: () => store.loaded() !== undefined,
      summary: () => `${spec.path} (+ .log), ${store.loaded() ? 'restored' : 'new'}`,
      notes() {
        const loaded = store.loaded()
        const notes: string[] = []
        if (loaded?.tornTail)
          notes.push(
            `${loaded.tornTail.file}: dropped ${loaded.tornTail.bytes} bytes at line ${loaded.tornTail.line}, a change cut short by a crash before it was acknowledged`,
          )
        if (loaded?.legacy) notes.push(`${spec.path} was a state file of an earlier version: converted`)
        return notes
      },
    }
  }
  if (spec.kind === 'redis' || spec.kind === 'redis-cluster') {
    const { createRedisStore } = await import('../../mocks/stores/redis/redis-store.ts')
    const store = await createRedisStore(
      spec.kind === 'redis' ? spec.url : { kind: 'cluster', nodes: spec.nodes },
    )
    return {
      store,
      restored: () => store.joined(),
      summary: () =>
        `${store.description}, ${store.joined() ? 'shared with the processes already on it' : 'new'}`,
      notes: () => [],
      report() {
        const stats = store.stats()
        const per = (n: number) => (stats.steps === 0 ? '0' : (n / stats.steps).toFixed(2))
        return `store: ${stats.steps} steps, ${stats.roundTrips} Redis round trips (${per(stats.roundTrips)} per step, ${per(stats.commands)} commands), ${stats.journalCommands} journal appends in the background, ${stats.retries} steps retried, ${stats.globalSteps} under the global lock`
      },
    }
  }
  const store = createMemoryStore()
  return { store, restored: () => false, summary: () => 'memory', notes: () => [] }
}

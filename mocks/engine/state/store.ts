import type { StateSnapshot } from './change-set.ts'
import type { EngineState } from './state.ts'

/**
 * Where the engine's state lives beyond this process's memory. The engine keeps the whole state in memory and
 * answers every request synchronously from it (so admission, idempotency and revocation are exact); a store
 * decides what happens around each step:
 * - memory (the default, for MSW and tests): nothing;
 * - an embedded durable store (a file's log): the step's changes are appended and flushed before its answer;
 * - a shared store (Redis): the step runs while this process holds the store, after every other process's
 *   changes were applied here, and its changes are published before its answer.
 * Adapters (Node) provide the durable and shared stores; the engine knows only this interface.
 */
export interface StateStore {
  /** What the store keeps (`memory`, `file:<path>`, `redis://...`), for messages. */
  readonly description: string
  /** The saved state to start from, or undefined for a new (or memory) store. Called once, first. */
  load(): Promise<StateSnapshot | undefined>
  /**
   * Binds the store to the engine's state, which now holds the loaded state or, for a new store, the seeded
   * one (`fresh`: save it as the store's first state).
   */
  attach(state: EngineState, options: { fresh: boolean }): Promise<void>
  /**
   * Runs one step of the engine (a request, a scheduled event) and keeps what it changed. Rejects with
   * `StoreUnavailable` when the changes could not be kept: they were undone, and nothing happened.
   */
  run<T>(step: () => T): Promise<T>
  /** Flushes what is pending and lets go of the store (a lock, a connection). */
  close(): Promise<void>
}

/** The store could not keep a step's changes (disk full, I/O error, connection lost); they were undone. */
export class StoreUnavailable extends Error {
  constructor(
    message: string,
    /** Seconds after which a retry may succeed, when known. */
    readonly retryAfterSeconds = 1,
  ) {
    super(message)
    this.name = 'StoreUnavailable'
  }
}

/**
 * The default store: the state lives in this process's memory only, starting from the seeded state or from
 * `initial` (a state saved elsewhere, such as a browser tab's storage).
 */
export function createMemoryStore(initial?: StateSnapshot): StateStore {
  let state: EngineState | undefined
  return {
    description: 'memory',
    load: async () => initial,
    async attach(engineState) {
      state = engineState
    },
    async run(step) {
      try {
        return step()
      } catch (error) {
        if (state) state.undo(state.take())
        throw error
      } finally {
        state?.take()
      }
    },
    async close() {},
  }
}

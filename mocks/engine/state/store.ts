import type { StateSnapshot } from './change-set.ts'
import type { EngineState } from './state.ts'

/**
 * What a step is known to read before it runs, so that a shared store can bring only that up to date (and
 * count the request) instead of taking the whole store: a v1 request reads its key's account and what is
 * global (the clock, the scenarios, the schedule). A step that then changes anything beyond its account
 * (a scenario's use, a call's transition) is run again by the store as a step over the whole state.
 */
export interface StepScope {
  /** The account whose records the step reads and may change; undefined: it reads only global records. */
  account?: string
  /** The request counts in the account's rate-limit windows (its key is valid): their limits, and now. */
  count?: { windows: readonly { seconds: number; quota: number }[]; nowMs: number }
  /** The SHA-256 of the key the request carries when the state holds no such key (another process may). */
  unknownKey?: string
}

/**
 * A request that a shared store counted in its account's rate-limit windows before the step ran, exactly
 * across processes; the engine's rate limiter answers from it instead of from this process's own count.
 */
export interface CountedRequest {
  /** Whether every window had room (the request was counted), or not (refused, not counted). */
  admitted: boolean
  /** The second it was counted in, and that second's count once it was. */
  second: number
  count: number
  /** Each window as it was before this request: requests in it, and its oldest second (null: empty). */
  windows: readonly { seconds: number; used: number; oldest: number | null }[]
}

/**
 * Where the engine's state lives beyond this process's memory. The engine keeps the whole state in memory and
 * answers every request synchronously from it (so admission, idempotency and revocation are exact); a store
 * decides what happens around each step:
 * - memory (the default, for MSW and tests): nothing;
 * - an embedded durable store (a file's log): the step's changes are appended and flushed before its answer;
 * - a shared store (Redis): the step runs once what it reads (its `StepScope`, or the whole state) is up to
 *   date with every other process's changes, and its changes are published, compared and set against what
 *   it read, before its answer.
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
   * `StoreUnavailable` when the changes could not be kept: they were undone, and nothing happened. `scope`
   * (called when the store needs it, maybe more than once) says what the step reads; without it, the step
   * may read anything.
   */
  run<T>(step: () => T, scope?: () => StepScope | undefined): Promise<T>
  /**
   * For a shared store that counts requests itself: what it counted for the running step's request of this
   * account (undefined: the engine counts it, as in one process).
   */
  counted?(accountId: string): CountedRequest | undefined
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

import { ApiError } from './api-error.ts'
import type { RequestHandler } from './pipeline/handle-request.ts'
import { newId } from './random.ts'
import { type StateStore, type StepScope, StoreUnavailable } from './state/store.ts'
import type { EngineRequest, EngineResponse } from './types.ts'
import type { EventBus } from './webhooks/event-bus.ts'

export interface StoreStepsOptions {
  store: StateStore
  requests: RequestHandler
  /** Events of a step, told to listeners once the step was kept (or dropped when it was not). */
  bus: EventBus
  /** Runs what fell due on the mock clock. */
  runDue: () => void
  /** What a request reads, for a shared store (`StepScope`); undefined: anything. */
  scopeOf?: (request: EngineRequest) => StepScope | undefined
}

/**
 * The engine's unit of work: a step (a request, a tick, a delivery's bookkeeping) runs through the store, which
 * keeps what it changed (or undoes it and refuses: 503); events are told to listeners once the step was kept,
 * and watchers learn that a step happened.
 */
export function createStoreSteps(options: StoreStepsOptions) {
  const { store, requests, bus } = options
  const watchers = new Set<() => void>()

  /**
   * Runs one step through the store, then tells listeners of its events and watchers that it happened.
   * `scope`: what the step reads, when known (`StateStore.run`).
   */
  async function run<T>(work: () => T, scope?: () => StepScope | undefined): Promise<T> {
    try {
      const result = await store.run(work, scope)
      bus.flush()
      return result
    } catch (error) {
      bus.discard()
      throw error
    } finally {
      for (const watcher of watchers) watcher()
    }
  }

  /**
   * Answers a request as a step, with what fell due before it (so that it sees the present) and after it (a
   * clock advance); a step whose changes could not be kept answers 503, having changed nothing.
   */
  async function handle(request: EngineRequest): Promise<EngineResponse> {
    const { scopeOf } = options
    try {
      return await run(
        () => {
          options.runDue()
          const response = requests.handle(request)
          options.runDue()
          return response
        },
        scopeOf && (() => scopeOf(request)),
      )
    } catch (error) {
      if (!(error instanceof StoreUnavailable)) throw error
      const unavailable = new ApiError(
        503,
        'api_error',
        'service_unavailable',
        `The mock could not save this change (${error.message}); nothing was changed. Retry later.`,
        {},
        { 'retry-after': String(error.retryAfterSeconds) },
      )
      // Journaled as the client sees it, if the store can keep even that.
      return store
        .run(() => requests.refuse(request, unavailable))
        .catch(() => {
          const requestId = newId('req', 20)
          const response = unavailable.toResponse(requestId)
          response.headers['request-id'] = requestId
          return response
        })
    }
  }

  /** Calls `watcher` after every step; returns how to stop. */
  function watch(watcher: () => void): () => void {
    watchers.add(watcher)
    return () => {
      watchers.delete(watcher)
    }
  }

  return { run, handle, watch }
}

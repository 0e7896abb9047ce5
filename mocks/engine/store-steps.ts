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

  /** After a step was kept: its events to the listeners, then the watchers. */
  function kept<T>(result: T): T {
    bus.flush()
    for (const watcher of watchers) watcher()
    return result
  }

  /** After a step whose changes were undone: its events forgotten, then the watchers. */
  function undone(): void {
    bus.discard()
    for (const watcher of watchers) watcher()
  }

  /**
   * Runs one step through the store, then tells listeners of its events and watchers that it happened. A
   * promise chain rather than an async function: no more turns of the event loop than the store's own.
   * `scope`: what the step reads, when known (`StateStore.run`).
   */
  function run<T>(work: () => T, scope?: () => StepScope | undefined): Promise<T> {
    return store.run(work, scope).then(kept, (error: unknown) => {
      undone()
      throw error
    })
  }

  /** 503 for a request whose changes the store could not keep, journaled as the client sees it if it can be. */
  function refuse(request: EngineRequest, error: StoreUnavailable): Promise<EngineResponse> {
    const unavailable = new ApiError(
      503,
      'api_error',
      'service_unavailable',
      `The mock could not save this change (${error.message}); nothing was changed. Retry later.`,
      {},
      { 'retry-after': String(error.retryAfterSeconds) },
    )
    return store
      .run(() => requests.refuse(request, unavailable))
      .catch(() => {
        const requestId = newId('req', 20)
        const response = unavailable.toResponse(requestId)
        response.headers['request-id'] = requestId
        return response
      })
  }

  /**
   * Answers a request as a step, with what fell due before it (so that it sees the present) and after it (a
   * clock advance); a step whose changes could not be kept answers 503, having changed nothing.
   */
  function handle(request: EngineRequest): Promise<EngineResponse> {
    const work = () => {
      options.runDue()
      const response = requests.handle(request)
      options.runDue()
      return response
    }
    const { scopeOf } = options
    return store.run(work, scopeOf && (() => scopeOf(request))).then(kept, (error: unknown) => {
      undone()
      if (!(error instanceof StoreUnavailable)) throw error
      return refuse(request, error)
    })
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

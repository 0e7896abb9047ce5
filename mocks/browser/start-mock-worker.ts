import type { SetupWorker } from 'msw/browser'
import type { Capsule, OpenedCapsule } from '../engine/capsule/capsule.ts'
import type { EventListener } from '../engine/webhooks/call-event.ts'
import type { CallStart, MockCalls } from '../msw/create-mock-api.ts'
import { createHandlers } from '../msw/handlers.ts'
import { createScenarioApi, type ScenarioApi } from '../msw/scenario-api.ts'
import type { MockPlatform, MockPlatformOptions } from '../platform.ts'
import { startTicker } from '../ticker/start-ticker.ts'
import { createPersistentPlatform } from './persistent-platform.ts'
import { createSessionStore, DEFAULT_STORAGE_KEY, type SessionStore } from './session-store.ts'

export interface MockWorkerOptions extends Omit<MockPlatformOptions, 'store' | 'clock'> {
  /** Where the app sends API requests, ending in `/v1`. Default `/v1` (the page's own origin). */
  baseUrl?: string
  /** URL of the service-worker script. Default `/mockServiceWorker.js`. */
  serviceWorkerUrl?: string
  /** Keep the state across reloads of the tab (`sessionStorage`). Default true. */
  persist?: boolean
  /** The `sessionStorage` item used when persisting. Default `voice-api-kit:mock-state`. */
  storageKey?: string
  /** Silence MSW's console messages. Default false. */
  quiet?: boolean
  /** What MSW does with requests no handler matches. Default `bypass` (assets, HMR, other APIs). */
  onUnhandledRequest?: 'bypass' | 'warn' | 'error'
  /**
   * A capsule to start from (its value or its text; `GET /_mock/capsule` or "Download capsule" of any mock),
   * opened at every start in place of the tab's saved state; its seed used unless `seed` is given. Rejects with
   * a `CapsuleError` naming the problem. The keys made where it was taken keep working.
   */
  capsule?: unknown
}

/** The running in-browser mock. */
export interface MockWorker {
  /** The MSW worker (for `worker.use(...)` overrides). */
  readonly worker: SetupWorker
  /** The platform currently answering. */
  readonly platform: MockPlatform
  /** The demo account's secret key (`sk-svc-...`); kept across reloads. */
  readonly secretKey: string
  /** The demo account's publishable key (`pk-svc-...`); kept across reloads. */
  readonly publishableKey: string
  /** The base URL the worker answers, ending in `/v1`. */
  readonly baseUrl: string
  /** Whether this page load continued a saved state (true after a reload). */
  readonly restored: boolean
  /** Back to the seeded state, as `POST /_mock/reset` does: the demo keys stay valid. */
  reset(): Promise<void>
  /** Simulated calls: `mock.calls.start({ agent_id })` (they move in real time, or as the clock is advanced). */
  readonly calls: MockCalls
  /** Calls `listener` with every call event as it happens; returns how to stop listening. */
  onEvent(listener: EventListener): () => void
  /** Stops intercepting requests and moving calls (the state stays saved). */
  stop(): void
  /**
   * Error states, latency and network faults on demand, in the page (`mock.scenarios.add({ operation:
   * 'listAgents', status: 500 })`); saved with the tab's state, cleared by `reset()`.
   */
  readonly scenarios: ScenarioApi
  /** The tab's whole state as a capsule (no key value; the signing secrets only with `webhookSecrets`). */
  capsule(options?: { webhookSecrets?: boolean }): Promise<Capsule>
  /** Replaces the tab's state by a capsule's, and saves it; a `CapsuleError` leaves the state as it was. */
  openCapsule(capsule: unknown): Promise<OpenedCapsule>
}

const noStore: SessionStore = { load: () => undefined, save: () => false, clear() {} }

/**
 * Starts MSW's service worker with the stateful mock engine running in the page: requests to
 * `<baseUrl>/...` (the v1 API) and `<origin>/_mock/...` (the control plane) are answered in the browser.
 * The state is saved to `sessionStorage` after every change and restored on reload.
 */
export async function startMockWorker(options: MockWorkerOptions = {}): Promise<MockWorker> {
  const {
    baseUrl = '/v1',
    serviceWorkerUrl = '/mockServiceWorker.js',
    persist = true,
    storageKey = DEFAULT_STORAGE_KEY,
    quiet = false,
    onUnhandledRequest = 'bypass',
    ...platformOptions
  } = options
  const store = persist ? createSessionStore(globalThis.sessionStorage, storageKey) : noStore
  const persistent = await createPersistentPlatform({ checkResponses: true, ...platformOptions, store })

  const view = () => ({ ...persistent.platform, handle: persistent.handle })
  // Loaded here, not at the top: this module can then be imported anywhere (a server render, a Node test that
  // only reads its types); msw 3 refuses `msw/browser` outside a browser.
  const { setupWorker } = await import('msw/browser')
  const worker = setupWorker(...createHandlers(view, { baseUrl }))
  await worker.start({ serviceWorker: { url: serviceWorkerUrl }, onUnhandledRequest, quiet })

  const flush = () => persistent.flush()
  globalThis.addEventListener?.('pagehide', flush)
  // Calls move in real time while the page is open (and catch up on the next step after a reload).
  const ticker = startTicker({
    tick: () => persistent.tick(),
    nextDueAt: () => persistent.platform.nextDueAt(),
    watch: (watcher) => persistent.platform.watch(watcher),
    clock: { now: () => persistent.platform.clock.now() },
  })

  return {
    worker,
    get platform() {
      return persistent.platform
    },
    get secretKey() {
      return persistent.secretKey
    },
    get publishableKey() {
      return persistent.publishableKey
    },
    baseUrl,
    get restored() {
      return persistent.restored
    },
    reset: () => persistent.reset(),
    scenarios: createScenarioApi((request) => persistent.handle(request), platformOptions.adminToken),
    calls: {
      start: async (input: CallStart, options?: { accountId?: string }) => {
        const log = await persistent.platform.calls.start(input, options?.accountId)
        persistent.save()
        return log
      },
    },
    onEvent: (listener) => persistent.platform.onEvent(listener),
    capsule: (take) => persistent.platform.capsule(take),
    openCapsule: (capsule) => persistent.openCapsule(capsule),
    stop() {
      ticker.stop()
      flush()
      globalThis.removeEventListener?.('pagehide', flush)
      worker.stop()
    },
  }
}

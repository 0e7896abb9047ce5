import { http } from 'msw'
import type { SetupWorker } from 'msw/browser'
import { toFetchResponse } from '../msw/fetch-bridge.ts'
import { createHandlers } from '../msw/handlers.ts'
import type { MockPlatform, MockPlatformOptions } from '../platform.ts'
import { createPersistentPlatform } from './persistent-platform.ts'
import { createSessionStore, DEFAULT_STORAGE_KEY, type StateStore } from './session-store.ts'

export interface MockWorkerOptions extends Omit<MockPlatformOptions, 'snapshot' | 'clock'> {
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
  /** Forgets the saved state and reseeds (same data, new demo key values). `POST /_mock/reset` does the same. */
  reset(): Promise<void>
  /** Stops intercepting requests (the state stays saved). */
  stop(): void
}

const noStore: StateStore = { load: () => undefined, save: () => false, clear() {} }

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
  const mountPoint = baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')

  // The engine's own reset goes back to the state this page load started from; in the browser a reset
  // means the seeded state, so the control plane checks the request and the platform is then reseeded.
  const resetHandler = http.post(`${mountPoint}/_mock/reset`, async ({ request }) => {
    const headers: Record<string, string> = {}
    request.headers.forEach((value, name) => {
      headers[name] = value
    })
    const body = await request.text()
    const answer = await persistent.platform.handle({
      method: 'POST',
      url: `/_mock/reset${new URL(request.url).search}`,
      headers,
      body: body === '' ? null : body,
    })
    if (answer.status === 200) await persistent.reset()
    return toFetchResponse(answer)
  })
  const view = () => ({ ...persistent.platform, handle: persistent.handle })
  // Loaded here, not at the top: this module can then be imported anywhere (a server render, a Node test that
  // only reads its types); msw 3 refuses `msw/browser` outside a browser.
  const { setupWorker } = await import('msw/browser')
  const worker = setupWorker(resetHandler, ...createHandlers(view, { baseUrl }))
  await worker.start({ serviceWorker: { url: serviceWorkerUrl }, onUnhandledRequest, quiet })

  const flush = () => persistent.flush()
  globalThis.addEventListener?.('pagehide', flush)

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
    stop() {
      flush()
      globalThis.removeEventListener?.('pagehide', flush)
      worker.stop()
    },
  }
}

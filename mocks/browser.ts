/**
 * `voice-api-kit/mocks/browser`: the stateful mock in the browser, behind MSW's service worker.
 *
 * The three-line start for a Vite app (see `examples/vite-app`):
 *
 * ```sh
 * cp node_modules/voice-api-kit/mocks/browser/mockServiceWorker.js public/
 * ```
 * ```ts
 * import { startMockWorker } from 'voice-api-kit/mocks/browser'
 * const mock = await startMockWorker() // fetch('/v1/agents', { headers: { authorization: `Bearer ${mock.publishableKey}` } })
 * ```
 *
 * `mock.scenarios.add({ operation: 'listAgents', status: 500 })` makes the API fail, slow down or drop
 * connections on purpose (kept with the tab's state).
 *
 * The state (accounts, key hashes, resources, clock, journal) survives a reload of the tab through
 * `sessionStorage`, with the values of the two demo keys (so that `mock.secretKey` and
 * `mock.publishableKey` keep working; no other key value is ever stored); `mock.reset()` or
 * `POST /_mock/reset` starts over.
 */
export { createPersistentPlatform, type PersistentPlatform } from './browser/persistent-platform.ts'
export {
  createSessionStore,
  DEFAULT_STORAGE_KEY,
  type SavedState,
  type SessionStore,
} from './browser/session-store.ts'
export { type MockWorker, type MockWorkerOptions, startMockWorker } from './browser/start-mock-worker.ts'
export type { Capsule, OpenedCapsule } from './engine/capsule/capsule.ts'
export { CapsuleError } from './engine/capsule/read-capsule.ts'
export type { CallEvent, EventContext, EventListener } from './engine/webhooks/call-event.ts'
export type { CallStart, MockCalls } from './msw/create-mock-api.ts'
export { createHandlers, DEFAULT_BASE_URL, type HandlerOptions } from './msw/handlers.ts'
export {
  type Scenario,
  type ScenarioApi,
  ScenarioError,
  type ScenarioHandle,
  type ScenarioInput,
} from './msw/scenario-api.ts'
export { createMockPlatform, type MockPlatform, type MockPlatformOptions } from './platform.ts'

/**
 * `voice-api-kit/mocks/node`: the stateful mock for MSW's `setupServer` (tests in Node).
 *
 * ```ts
 * const api = await createMockApi()
 * const server = setupServer(...api.handlers)
 * server.listen()
 * await api.scenarios.add({ operation: 'listAgents', status: 500 }) // error states, delays, network errors
 * ```
 */
export type { Capsule, OpenedCapsule } from './engine/capsule/capsule.ts'
export { CapsuleError } from './engine/capsule/read-capsule.ts'
export type { CallEvent, EventContext, EventListener } from './engine/webhooks/call-event.ts'
export {
  type CallStart,
  createMockApi,
  type MockApi,
  type MockApiOptions,
  type MockCalls,
} from './msw/create-mock-api.ts'
export { createHandlers, DEFAULT_BASE_URL, type HandlerOptions } from './msw/handlers.ts'
export {
  type Scenario,
  type ScenarioApi,
  ScenarioError,
  type ScenarioHandle,
  type ScenarioInput,
} from './msw/scenario-api.ts'
export { createMockPlatform, type MockPlatform, type MockPlatformOptions } from './platform.ts'

import type { CallInput } from '../engine/calls/call-plan.ts'
import type { Capsule, OpenedCapsule } from '../engine/capsule/capsule.ts'
import type { CallLog } from '../engine/resources/types.ts'
import type { EventListener } from '../engine/webhooks/call-event.ts'
import { createMockPlatform, type MockPlatform, type MockPlatformOptions } from '../platform.ts'
import { startTicker } from '../ticker/start-ticker.ts'
import { createHandlers, DEFAULT_BASE_URL, type HandlerOptions } from './handlers.ts'
import { createScenarioApi, type ScenarioApi } from './scenario-api.ts'

/** A call to start: an agent of the account, and optionally how it goes (mock-control.yaml `CallStartRequest`). */
export type CallStart = Partial<CallInput> & { agent_id: string }

/** Simulated calls, in-process. */
export interface MockCalls {
  /**
   * Starts a call as `POST /_mock/accounts/{account_id}/calls` does (the demo account's unless `accountId` is
   * given) and resolves to its call log, `queued`; it then rings, connects, talks and ends in real time (or as
   * the clock is advanced), and its events reach `onEvent` listeners. Rejects naming the field on bad input.
   */
  start(input: CallStart, options?: { accountId?: string }): Promise<CallLog>
}

/**
 * `capsule`: a capsule to start from (`api.capsule()`, `GET /_mock/capsule` or the dashboard's "Download
 * capsule" of any mock; its value or its text): checked whole first (a `CapsuleError` naming the problem), its
 * seed used unless `seed` is given. The keys made where it was taken keep working; `secretKey` and
 * `publishableKey` are then empty (the capsule holds no key value).
 */
export interface MockApiOptions extends MockPlatformOptions, HandlerOptions {}

/** The MSW side of the mock: handlers, the platform behind them, and the demo keys. */
export interface MockApi {
  /** Pass to `setupServer(...)` or `setupWorker(...)`. */
  handlers: ReturnType<typeof createHandlers>
  /** The platform currently behind the handlers. */
  readonly platform: MockPlatform
  /** The demo account's secret key (`sk-svc-...`). */
  readonly secretKey: string
  /** The demo account's publishable key (`pk-svc-...`). */
  readonly publishableKey: string
  readonly baseUrl: string
  /**
   * Back to the seeded state, as `POST /_mock/reset` does: every change is undone, the clock follows real time
   * again, and the demo keys stay valid, so an app client built once with `api.secretKey` keeps working.
   * Call it in `beforeEach`.
   */
  reset(): Promise<void>
  /**
   * Error states, latency and network faults on demand (`api.scenarios.add({ operation: 'listAgents',
   * status: 500 })`), as `/_mock/scenarios` offers them; `reset()` clears them too.
   */
  readonly scenarios: ScenarioApi
  /** Simulated calls: `api.calls.start({ agent_id })`. */
  readonly calls: MockCalls
  /**
   * Calls `listener(event, { account_id, agent_id })` with every call event as it happens (`call.started`,
   * `call.ended`, `transcript.ready`, `call.analyzed`; the v1 contract's `webhooks`), whatever the agent
   * subscribes to; no HTTP receiver needed. Returns how to stop listening.
   */
  onEvent(listener: EventListener): () => void
  /**
   * The whole state as a capsule (as `GET /_mock/capsule` answers it): write it to a file
   * (`JSON.stringify(capsule)`) and open it anywhere else. Never a key value; the webhook signing secrets only
   * with `{ webhookSecrets: true }`.
   */
  capsule(options?: { webhookSecrets?: boolean }): Promise<Capsule>
  /**
   * Replaces the whole state by a capsule's (its value or its text), the clock set to where it stood; rejects
   * with a `CapsuleError` naming the problem (damaged, another version, too large, a record the state cannot
   * hold), the state left as it was.
   */
  openCapsule(capsule: unknown): Promise<OpenedCapsule>
}

/** Creates a seeded platform and MSW handlers that run it. */
export async function createMockApi(options: MockApiOptions = {}): Promise<MockApi> {
  const { baseUrl = DEFAULT_BASE_URL, ...platformOptions } = options
  const platform = await createMockPlatform({ checkResponses: true, ...platformOptions })
  // Calls move in real time; the timer runs only while something is scheduled and never keeps Node alive.
  startTicker(platform)
  return {
    handlers: createHandlers(() => platform, { baseUrl }),
    get platform() {
      return platform
    },
    get secretKey() {
      return platform.demo.secretKey ?? ''
    },
    get publishableKey() {
      return platform.demo.publishableKey ?? ''
    },
    baseUrl,
    async reset() {
      await platform.reset()
    },
    scenarios: createScenarioApi((request) => platform.handle(request), platformOptions.adminToken),
    calls: {
      start: (input, options) => platform.calls.start(input, options?.accountId),
    },
    onEvent: (listener) => platform.onEvent(listener),
    capsule: (take) => platform.capsule(take),
    openCapsule: (capsule) => platform.openCapsule(capsule),
  }
}

import { createMockPlatform, type MockPlatform, type MockPlatformOptions } from '../platform.ts'
import { createHandlers, DEFAULT_BASE_URL, type HandlerOptions } from './handlers.ts'
import { createScenarioApi, type ScenarioApi } from './scenario-api.ts'

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
}

/** Creates a seeded platform and MSW handlers that run it. */
export async function createMockApi(options: MockApiOptions = {}): Promise<MockApi> {
  const { baseUrl = DEFAULT_BASE_URL, ...platformOptions } = options
  const platform = await createMockPlatform({ checkResponses: true, ...platformOptions })
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
  }
}

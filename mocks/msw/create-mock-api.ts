import { createMockPlatform, type MockPlatform, type MockPlatformOptions } from '../platform.ts'
import { createHandlers, DEFAULT_BASE_URL, type HandlerOptions } from './handlers.ts'

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
  /** Swaps in a fresh platform seeded as at the start (new demo keys); call it in `beforeEach`. */
  reset(): Promise<void>
}

/** Creates a seeded platform and MSW handlers that run it. */
export async function createMockApi(options: MockApiOptions = {}): Promise<MockApi> {
  const { baseUrl = DEFAULT_BASE_URL, ...platformOptions } = options
  let platform = await createMockPlatform({ checkResponses: true, ...platformOptions })
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
      platform = await createMockPlatform({ checkResponses: true, ...platformOptions })
    },
  }
}

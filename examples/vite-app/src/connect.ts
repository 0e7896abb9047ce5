import { type MockWorker, startMockWorker } from 'voice-api-kit/mocks/browser'
import { controlPlaneScenarios, type Scenarios } from './scenarios.ts'

/** Where the app's API calls go, and with which keys. */
export interface ApiTarget {
  baseUrl: string
  publishableKey(): string
  secretKey(): string
  /** Where the keys of this target are managed. */
  dashboardUrl: string
  /** One line for the page header. */
  description: string
  /** Starts the mock over (only the in-browser mock can). */
  reset?: () => Promise<void>
  /** Makes the mock fail or slow down on purpose, when the app can reach its control plane. */
  scenarios?: Scenarios
  /** Starts a simulated call and reports its events as they happen (only the in-browser mock can). */
  calls?: Pick<MockWorker, 'calls' | 'onEvent'>
}

/**
 * The in-browser mock (MSW worker) by default. With `VITE_API_BASE_URL` set (e.g. to the standalone mock,
 * `http://127.0.0.1:4010/v1`), the app calls that API instead, with `VITE_PUBLISHABLE_KEY` and
 * `VITE_SECRET_KEY` from `.env.local`: the worker is not started. With `VITE_MOCK_PROXY` set to the
 * standalone mock's origin instead, the dev server proxies `/v1` and `/_mock` to it (see `vite.config.ts`):
 * the app and the dashboard are on the app's origin, and the app can drive scenarios.
 */
export async function connect(): Promise<ApiTarget> {
  const env = import.meta.env
  if (env.VITE_MOCK_PROXY)
    return {
      baseUrl: '/v1',
      publishableKey: () => env.VITE_PUBLISHABLE_KEY ?? '',
      secretKey: () => env.VITE_SECRET_KEY ?? '',
      dashboardUrl: '/_mock/dashboard',
      description: `Standalone mock at ${env.VITE_MOCK_PROXY}, through this dev server's proxy`,
      scenarios: controlPlaneScenarios('/_mock'),
    }
  if (env.VITE_API_BASE_URL) {
    const origin = new URL(env.VITE_API_BASE_URL).origin
    return {
      baseUrl: env.VITE_API_BASE_URL,
      publishableKey: () => env.VITE_PUBLISHABLE_KEY ?? '',
      secretKey: () => env.VITE_SECRET_KEY ?? '',
      dashboardUrl: `${origin}/_mock/dashboard`,
      description: `API at ${env.VITE_API_BASE_URL}`,
    }
  }
  const mock = await startMockWorker({ quiet: true })
  return {
    baseUrl: mock.baseUrl,
    publishableKey: () => mock.publishableKey,
    secretKey: () => mock.secretKey,
    dashboardUrl: '/dashboard.html',
    description: `In-browser mock (MSW service worker)${mock.restored ? ', state restored from this tab' : ''}`,
    reset: () => mock.reset(),
    scenarios: mock.scenarios,
    calls: mock,
  }
}

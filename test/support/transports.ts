import type { Server } from 'node:http'
import { setupServer } from 'msw/node'
import { createMockApi } from '../../mocks/msw/create-mock-api.ts'
import { createMockPlatform, type MockPlatform, type MockPlatformOptions } from '../../mocks/platform.ts'
import { createHttpServer, listen } from '../../mocks/server/http-server.ts'
import { startPrismProxy } from './prism-proxy.ts'

export type TransportKind = 'msw' | 'http' | 'prism-proxy'

/** A running mock reached through one adapter, with the platform behind it for setup. */
export interface Transport {
  kind: TransportKind
  /** Origin without a path, e.g. `http://127.0.0.1:53211`. */
  origin: string
  platform: MockPlatform
  /** Where `/v1` requests go instead, when a proxy sits in front (its root is the API's `/v1`). */
  apiBase?: string
  /** Response violations reported by the proxy (`sl-violations`); `close()` fails when any were seen. */
  violations: string[]
  close(): Promise<void>
}

const MSW_ORIGIN = 'http://mock.test'

/** Starts the mock behind MSW's `setupServer` (fetch is intercepted in-process) or behind node:http. */
export async function startTransport(
  kind: TransportKind,
  options: MockPlatformOptions = {},
): Promise<Transport> {
  if (kind === 'msw') {
    const api = await createMockApi({ baseUrl: `${MSW_ORIGIN}/v1`, checkResponses: true, ...options })
    const server = setupServer(...api.handlers)
    server.listen({ onUnhandledRequest: 'error' })
    return {
      kind,
      origin: MSW_ORIGIN,
      violations: [],
      get platform() {
        return api.platform
      },
      close: async () => server.close(),
    }
  }
  const platform = await createMockPlatform({ checkResponses: true, ...options })
  const server: Server = createHttpServer(() => platform)
  const { port } = await listen(server, 0, '127.0.0.1')
  const origin = `http://127.0.0.1:${port}`
  const closeServer = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  if (kind === 'http') return { kind, origin, platform, violations: [], close: closeServer }

  const proxy = await startPrismProxy(`${origin}/v1`)
  const violations: string[] = []
  return {
    kind,
    origin,
    platform,
    apiBase: proxy.origin,
    violations,
    async close() {
      await proxy.stop()
      await closeServer()
      if (violations.length > 0)
        throw new Error(`prism proxy saw ${violations.length} response violations:\n${violations.join('\n')}`)
    },
  }
}

/**
 * The adapters every behaviour test runs through: MSW in-process, node:http, and node:http behind
 * `prism proxy` (whose response violations fail the file). `TRANSPORTS=msw,http` narrows the list.
 */
export const TRANSPORTS: TransportKind[] = (process.env.TRANSPORTS?.split(',') as
  | TransportKind[]
  | undefined) ?? ['msw', 'http', 'prism-proxy']

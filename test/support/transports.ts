import type { Server } from 'node:http'
import { setupServer } from 'msw/node'
import { createMockApi } from '../../mocks/msw/create-mock-api.ts'
import { createMockPlatform, type MockPlatform, type MockPlatformOptions } from '../../mocks/platform.ts'
import { createHttpServer, listen } from '../../mocks/server/http-server.ts'

export type TransportKind = 'msw' | 'http'

/** A running mock reached through one adapter, with the platform behind it for setup. */
export interface Transport {
  kind: TransportKind
  /** Origin without a path, e.g. `http://127.0.0.1:53211`. */
  origin: string
  platform: MockPlatform
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
      get platform() {
        return api.platform
      },
      close: async () => server.close(),
    }
  }
  const platform = await createMockPlatform({ checkResponses: true, ...options })
  const server: Server = createHttpServer(() => platform)
  const { port } = await listen(server, 0, '127.0.0.1')
  return {
    kind,
    origin: `http://127.0.0.1:${port}`,
    platform,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

export const TRANSPORTS: TransportKind[] = ['msw', 'http']

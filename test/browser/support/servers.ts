import { fileURLToPath } from 'node:url'
import { parseMockFlags, type RunningMock, startMock } from '../../../cli/mock/mock-command.ts'

const EXAMPLE_CONFIG = fileURLToPath(new URL('../../../examples/vite-app/vite.config.ts', import.meta.url))

/** The standalone mock on a free loopback port, quiet, with any more CLI flags given. */
export async function startStandaloneMock(args: string[] = []): Promise<RunningMock & { origin: string }> {
  const flags = parseMockFlags(['--port', '0', '--quiet', ...args])
  if (flags === 'help') throw new Error('unreachable')
  const mock = await startMock(flags, () => {})
  return { ...mock, origin: mock.baseUrl.replace(/\/v1$/, '') }
}

/** The example app's Vite dev server on a free port; the app starts the in-browser mock itself. */
export async function startExampleApp(): Promise<{ origin: string; close(): Promise<void> }> {
  const { createServer } = await import('vite')
  const server = await createServer({
    configFile: EXAMPLE_CONFIG,
    server: { port: 0, strictPort: false, hmr: false },
    logLevel: 'error',
    clearScreen: false,
  })
  await server.listen()
  const origin = server.resolvedUrls?.local[0]?.replace(/\/$/, '')
  if (!origin) throw new Error('The example dev server has no local URL.')
  return { origin, close: () => server.close() }
}

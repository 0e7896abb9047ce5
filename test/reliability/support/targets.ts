import { mkdtempSync, rmSync } from 'node:fs'
import type { Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMockPlatform, type MockPlatform, type MockPlatformOptions } from '../../../mocks/platform.ts'
import { createHttpServer, listen, type RequestHandler } from '../../../mocks/server/http-server.ts'
import { spawnMock } from './spawn-mock.ts'

/** A running mock over real HTTP: in this process, or the CLI with `--state-file` in a child. */
export interface Target {
  name: string
  origin: string
  close(): Promise<void>
}

/** A mock platform behind `createHttpServer` in this process, on a free loopback port. */
export interface ServedPlatform {
  platform: MockPlatform
  port: number
  /** `http://127.0.0.1:<port>` */
  origin: string
  /** The demo account's secret key. */
  key: string
  close(): Promise<void>
}

/**
 * Serves a platform made with `options` over node:http on a free loopback port; `wrap` puts test code
 * between the server and the engine (a faulty implementation for the sensitivity tests).
 */
export async function servePlatform(
  options: MockPlatformOptions = {},
  wrap?: (platform: MockPlatform) => RequestHandler,
): Promise<ServedPlatform> {
  const platform = await createMockPlatform(options)
  const handler: RequestHandler = wrap ? wrap(platform) : platform
  const server: Server = createHttpServer(() => handler)
  const { port } = await listen(server, 0, '127.0.0.1')
  return {
    platform,
    port,
    origin: `http://127.0.0.1:${port}`,
    key: platform.demo.secretKey ?? '',
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** The engine behind `createHttpServer` in this process, responses checked against the contract. */
export async function inProcessTarget(
  options: { wrap?: (platform: MockPlatform) => RequestHandler } = {},
): Promise<Target> {
  const { origin, close } = await servePlatform({ checkResponses: true }, options.wrap)
  return { name: 'in-process server', origin, close }
}

/** `voice-api-kit mock --state-file` in a child process (every write is made durable before it answers). */
export async function stateFileTarget(): Promise<Target> {
  const folder = mkdtempSync(join(tmpdir(), 'vak-target-'))
  const mock = await spawnMock(['--quiet', '--state-file', join(folder, 'state.json')])
  return {
    name: 'CLI with --state-file',
    origin: mock.origin,
    async close() {
      await mock.kill('SIGTERM')
      rmSync(folder, { recursive: true, force: true })
    },
  }
}

/** A body `createAgent` accepts. */
export function agentBody(name: string) {
  return {
    name,
    voice: { provider: 'elevenlabs', voice_id: 'rachel' },
    llm: { provider: 'openai', model: 'gpt-4o-mini' },
  }
}

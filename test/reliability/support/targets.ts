import { mkdtempSync, rmSync } from 'node:fs'
import type { Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMockPlatform, type MockPlatform, type MockPlatformOptions } from '../../../mocks/platform.ts'
import { createHttpServer, listen, type RequestHandler } from '../../../mocks/server/http-server.ts'
import type { SharedRedis } from '../../stores/support/shared-redis.ts'
import { startRoundRobin } from './round-robin.ts'
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

/**
 * Three `voice-api-kit mock --store <redis>` processes behind a round-robin proxy, as a team runs a shared mock
 * behind a load balancer: consecutive requests of one client reach different processes.
 */
export function sharedStoreTarget(name: string, startRedis: () => Promise<SharedRedis>) {
  return async (): Promise<Target> => {
    const redis = await startRedis()
    const store = ['--quiet', '--store', redis.url]
    const first = await spawnMock(store)
    const mocks = [first, ...(await Promise.all([spawnMock(store), spawnMock(store)]))]
    const balancer = await startRoundRobin(mocks.map((mock) => mock.origin))
    return {
      name,
      origin: balancer.origin,
      async close() {
        await balancer.close()
        await Promise.all(mocks.map((mock) => mock.kill('SIGTERM')))
        await redis.stop()
      },
    }
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

import { type ChildProcess, spawn } from 'node:child_process'
import type { Server } from 'node:http'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CheckOutcome, defineContractSuite } from '../contracts/index.ts'
import { createMockPlatform } from '../mocks/platform.ts'
import { createHttpServer, listen } from '../mocks/server/http-server.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** Starts `prism <args>` on a free port of 127.0.0.1; resolves with its origin once it listens. */
async function startPrism(args: string[]): Promise<{ origin: string; stop: () => Promise<void> }> {
  const probe = createHttpServer(() => ({
    handle: async () => ({ status: 204, headers: {}, body: undefined }),
  }))
  const { port } = await listen(probe, 0, '127.0.0.1')
  await new Promise((resolve) => probe.close(resolve))
  const child: ChildProcess = spawn(
    `${ROOT}node_modules/.bin/prism`,
    [...args, '--host', '127.0.0.1', '--port', String(port)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not start:\n${output}`)), 60_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (/listening on/i.test(output)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) => reject(new Error(`prism exited with ${code}:\n${output}`)))
  })
  child.stdout?.resume()
  child.stderr?.resume()
  return {
    origin: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

describe('the contract suite through prism proxy in front of the mock', () => {
  let server: Server
  let mockOrigin = ''
  let proxy: Awaited<ReturnType<typeof startPrism>>
  beforeAll(async () => {
    const platform = await createMockPlatform({ checkResponses: true })
    server = createHttpServer(() => platform)
    mockOrigin = `http://127.0.0.1:${(await listen(server, 0, '127.0.0.1')).port}`
    // Prism validates every response (--errors turns a violation into an error the suite reports); request
    // validation is off so that the suite's deliberately bad requests reach the implementation.
    proxy = await startPrism([
      'proxy',
      'openapi/v1.yaml',
      `${mockOrigin}/v1`,
      '--errors',
      '--validate-request',
      'false',
    ])
  }, 90_000)
  afterAll(async () => {
    await proxy?.stop()
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  })
  defineContractSuite(() => ({
    baseUrl: proxy.origin,
    mockControlUrl: `${mockOrigin}/_mock`,
    provision: 'mock',
    destructive: true,
  }))
})

describe('the contract suite against prism mock (stateless)', () => {
  let prism: Awaited<ReturnType<typeof startPrism>>
  const outcomes: CheckOutcome[] = []
  beforeAll(async () => {
    prism = await startPrism(['mock', 'openapi/v1.yaml'])
  }, 90_000)
  afterAll(() => prism?.stop())
  defineContractSuite(
    () => ({ baseUrl: prism.origin, secretKey: `sk-svc-${'PrismMockAcceptsAnyKey'.padEnd(40, '0')}` }),
    { onOutcome: (outcome) => void outcomes.push(outcome) },
  )
  it('runs the stateless subset and reports the rest as not applicable, never as failures', () => {
    const statuses = new Set(outcomes.map((o) => o.status))
    expect(statuses.has('passed')).toBe(true)
    expect(statuses.has('not-applicable')).toBe(true)
    expect(outcomes.filter((o) => o.status === 'failed').map((o) => o.check.id)).toEqual([])
  })
})

import { existsSync, readFileSync } from 'node:fs'
import { freePort } from '../lib/prism-process.ts'
import type { CapturedResponse } from './capture.ts'
import { type Child, spawnChild } from './children.ts'
import { httpRequest, waitFor200 } from './http-request.ts'
import { benchScript, PRISM_CLI, V1_CONTRACT } from './paths.ts'

/** A server under load, in its own process. */
export interface BenchServer {
  name: 'mock' | 'prism' | 'bare'
  child: Child
  origin: string
  /** The path on this server for a path under `/v1` (Prism serves the contract's paths at its root). */
  pathFor(path: string): string
}

/** The mock, with the demo account's key and its limits lifted. */
export interface MockServer extends BenchServer {
  secretKey: string
  accountId: string
  controlUrl: string
}

/** The bare server, which replays captured responses. */
export interface BareServer extends BenchServer {
  replay(key: string, response: CapturedResponse): Promise<void>
}

/** Far above anything a bench run sends (the control plane accepts up to 1e8). */
const LIFTED_LIMITS = { hourly: 100_000_000, burst: 100_000_000 }

async function readKeysFile(path: string, timeoutMs = 10_000) {
  const deadline = performance.now() + timeoutMs
  while (performance.now() < deadline) {
    if (existsSync(path)) {
      try {
        return JSON.parse(readFileSync(path, 'utf8')) as {
          base_url: string
          control_url: string
          account_id: string
          secret_key: string | null
        }
      } catch {
        // Half-written: try again.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`The mock wrote no keys file at ${path}.`)
}

/** Lifts an account's rate limits through the control plane, so every request does the full work. */
export async function liftLimits(controlUrl: string, accountId: string): Promise<void> {
  const result = await httpRequest(`${controlUrl}/accounts/${accountId}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ limits: LIFTED_LIMITS }),
  })
  if (result.status !== 200)
    throw new Error(`Lifting the limits failed: ${result.status} ${result.body.toString('utf8')}`)
}

/**
 * Secret keys of `count` new pro-plan accounts with lifted limits, provisioned through the control plane: the
 * write case takes turns with them, so that its creates stay within each account's 1,000 agents.
 */
export async function provisionWriteKeys(controlUrl: string, count: number): Promise<string[]> {
  const post = async (path: string, body: unknown) => {
    const result = await httpRequest(`${controlUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    if (result.status !== 201)
      throw new Error(`Provisioning a bench account failed: ${result.status} ${result.body.toString('utf8')}`)
    return JSON.parse(result.body.toString('utf8')) as { id: string; value: string }
  }
  const keys: string[] = []
  for (let i = 0; i < count; i++) {
    const account = await post('/accounts', { plan: 'pro' })
    await liftLimits(controlUrl, account.id)
    keys.push(
      (await post(`/accounts/${account.id}/keys`, { type: 'secret', name: `bench writer ${i}` })).value,
    )
  }
  return keys
}

/**
 * Starts the standalone mock (`<entry> mock`, with `extraArgs` such as `--store ...`) on a free port and lifts
 * the demo account's limits. A mock joining a shared store may not know the demo key's value: `secretKey`
 * is then empty.
 */
export async function startMockServer(
  entry: string[],
  keysFile: string,
  extraArgs: string[] = [],
): Promise<MockServer> {
  const args = [...entry, 'mock', '--port', '0', '--quiet', '--keys-file', keysFile, ...extraArgs]
  const child = spawnChild('mock', args)
  await child.waitForLine(/listening on (http:\/\/\S+)\/v1/)
  const keys = await readKeysFile(keysFile)
  if (!keys.secret_key && extraArgs.length === 0) throw new Error('The mock printed no secret key.')
  await liftLimits(keys.control_url, keys.account_id)
  return {
    name: 'mock',
    child,
    origin: keys.base_url.replace(/\/v1$/, ''),
    pathFor: (path) => path,
    secretKey: keys.secret_key ?? '',
    accountId: keys.account_id,
    controlUrl: keys.control_url,
  }
}

/** Starts `prism mock openapi/v1.yaml` and waits until it answers an authenticated `GET /agents`. */
export async function startPrismServer(): Promise<BenchServer> {
  const port = await freePort()
  const child = spawnChild('prism', [
    PRISM_CLI,
    'mock',
    V1_CONTRACT,
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
  ])
  const origin = `http://127.0.0.1:${port}`
  await waitFor200(
    `${origin}/agents`,
    { headers: { authorization: 'Bearer sk-svc-bench' } },
    child.startedAt,
    {
      intervalMs: 50,
      timeoutMs: 60_000,
    },
  )
  return { name: 'prism', child, origin, pathFor: (path) => path.replace(/^\/v1/, '') }
}

/** Starts the bare node:http server (`bare-server.ts`), which replays what it is given. */
export async function startBareServer(): Promise<BareServer> {
  const child = spawnChild('bare', benchScript('bare-server.ts'), { ipc: true })
  const port = (await child.waitForLine(/bare listening on (\d+)/))[1]
  return {
    name: 'bare',
    child,
    origin: `http://127.0.0.1:${port}`,
    pathFor: (path) => path,
    replay(key, response) {
      return new Promise((resolve) => {
        const onMessage = (message: { stored?: string }) => {
          if (message.stored !== key) return
          child.process.off('message', onMessage)
          resolve()
        }
        child.process.on('message', onMessage)
        child.process.send({ key, response })
      })
    },
  }
}

import type { Server } from 'node:http'
import { CapsuleError } from '../../mocks/engine/capsule/read-capsule.ts'
import { parseAllowedHost } from '../../mocks/engine/control/host-check.ts'
import { SavedStateError } from '../../mocks/engine/saved-state.ts'
import type { StateStore } from '../../mocks/engine/state/store.ts'
import { createMockPlatform, type MockPlatform } from '../../mocks/platform.ts'
import { dashboardPages } from '../../mocks/server/dashboard/dashboard-pages.ts'
import { createHttpServer, listen } from '../../mocks/server/http-server.ts'
import { isLoopbackHost, isWildcardHost } from '../../mocks/server/loopback-host.ts'
import { docsPage } from '../../mocks/server/pages.ts'
import { runWebhooks } from '../../mocks/server/webhooks/run-webhooks.ts'
import { readCapsuleFile } from './capsule-file.ts'
import { prepareKeysFile, previousKeys, writeKeysFile } from './keys-file.ts'
import type { MockFlags } from './mock-flags.ts'
import { openStore } from './open-store.ts'

export { MOCK_HELP, type MockFlags, parseMockFlags } from './mock-flags.ts'

export interface RunningMock {
  server: Server
  platform: MockPlatform
  baseUrl: string
  close(): Promise<void>
}

/** Starts the mock server; resolves once it listens. */
export async function startMock(
  flags: MockFlags,
  log: (line: string) => void = console.log,
): Promise<RunningMock> {
  if (flags.keysFile) prepareKeysFile(flags.keysFile)
  // Read (and bounded) before the store is opened: a capsule that cannot be read changes nothing.
  const capsule = flags.fromCapsule === undefined ? undefined : readCapsuleFile(flags.fromCapsule)
  const opened = await openStore(flags.store)
  const store: StateStore = opened.store
  let platform: MockPlatform
  try {
    platform = await createMockPlatform({
      // A capsule brings its seed (--seed is refused with it).
      seed: capsule === undefined ? flags.seed : undefined,
      capsule,
      plan: flags.plan,
      adminToken: flags.adminToken,
      // The name the mock was told to listen on is its own too (an address needs no entry).
      allowedHosts: [...flags.allowedHosts, parseAllowedHost(flags.host) ?? []].flat(),
      pages: { '/docs': docsPage, ...dashboardPages() },
      store,
      webhookDeliveries: true,
      onScheduleError: (message) => log(`error: ${message}`),
    })
  } catch (error) {
    await store.close().catch(() => {})
    if (error instanceof SavedStateError) throw new Error(`${store.description}: ${error.message}`)
    if (error instanceof CapsuleError)
      throw new Error(`--from-capsule ${flags.fromCapsule}: ${error.message}`)
    throw error
  }

  // `Location` is built from the base URL printed below; on a wildcard address (0.0.0.0, ::) from the
  // address each connection reached. Never from the Host header.
  let publicBaseUrl: string | undefined
  const server = createHttpServer(() => platform, {
    baseUrl: () => publicBaseUrl,
    maxConnections: flags.maxConnections,
  })
  let port: number
  try {
    port = (await listen(server, flags.port, flags.host)).port
  } catch (error) {
    await platform.close().catch(() => {})
    throw error
  }
  const hostForUrl = flags.host.includes(':') ? `[${flags.host}]` : flags.host
  const origin = `http://${hostForUrl}:${port}`
  const baseUrl = `${origin}/v1`
  if (!isWildcardHost(flags.host)) publicBaseUrl = baseUrl
  const known =
    opened.restored() && capsule === undefined ? previousKeys(platform, flags.keysFile) : platform.demo
  const { secretKey, publishableKey } = known

  // Calls move and webhooks go out in real time; with a shared store, calls started by other processes are
  // learnt of by polling.
  const webhooks = runWebhooks(platform, {
    hosts: flags.webhookHosts,
    log: flags.quiet ? undefined : log,
    pollMs: flags.store.kind === 'redis' || flags.store.kind === 'redis-cluster' ? 1000 : undefined,
  })

  const close = async () => {
    const stopping = webhooks.stop()
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
    await stopping
    await platform.close()
    const report = opened.report?.()
    if (report && !flags.quiet) log(report)
  }

  // Written before the banner, so that a script that waits for the banner finds the file complete.
  if (flags.keysFile) {
    try {
      await writeKeysFile(flags.keysFile, {
        base_url: baseUrl,
        control_url: `${origin}/_mock`,
        account_id: platform.demo.account.id,
        secret_key: secretKey ?? null,
        publishable_key: publishableKey ?? null,
      })
    } catch (error) {
      await close()
      throw error
    }
  }
  log(`voice-api-kit mock listening on ${baseUrl}`)
  if (!flags.quiet) {
    log(
      `  account          ${platform.demo.account.id} (${platform.demo.account.plan} plan, seed ${platform.seed})`,
    )
    log(
      `  control plane    ${origin}/_mock${flags.adminToken ? ' (admin token required)' : ' (loopback only)'}`,
    )
    log(`  docs             ${origin}/_mock/docs   dashboard ${origin}/_mock/dashboard`)
    if (flags.store.kind !== 'memory') log(`  state            ${opened.summary()}`)
    for (const note of opened.notes()) log(`  note             ${note}`)
    if (flags.keysFile) log(`  keys file        ${flags.keysFile}`)
    if (flags.fromCapsule) log(`  capsule          ${flags.fromCapsule} opened`)
    log('demo keys, shown once (paste into your shell):')
    const unknown =
      capsule === undefined
        ? '# unchanged since the state was created: see the keys file'
        : '# the keys of the mock the capsule was taken from'
    log(secretKey ? `  export SECRET_KEY=${secretKey}` : `  ${unknown} (secret key)`)
    log(publishableKey ? `  export PUBLISHABLE_KEY=${publishableKey}` : `  ${unknown} (publishable key)`)
  }
  if (!isLoopbackHost(flags.host))
    log(
      `warning: listening on ${flags.host}, not loopback: anyone who can reach this address can use the mock API.`,
    )
  return { server, platform, baseUrl, close }
}

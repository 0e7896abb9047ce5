import { closeSync, existsSync, fchmodSync, openSync, readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import { parseArgs } from 'node:util'
import { createClock } from '../engine/clock.ts'
import { parseAllowedHost } from '../engine/host-check.ts'
import type { EngineResponse } from '../engine/types.ts'
import { createMockPlatform, type MockPlatform } from '../platform.ts'
import { dashboardPages } from '../server/dashboard/dashboard-pages.ts'
import { createHttpServer, listen } from '../server/http-server.ts'
import { isLoopbackHost, isWildcardHost } from '../server/loopback-host.ts'
import { docsPage } from '../server/pages.ts'
import { persistChanges } from '../server/persist-changes.ts'
import { createStateFile } from '../server/state-file.ts'
import { writeFileAtomically } from '../server/write-file-atomically.ts'
import { choiceFlag, integerFlag, UsageError } from './usage-error.ts'

export const MOCK_HELP = `Usage: voice-api-kit mock [options]

Starts the stateful mock of the voice agent platform's v1 API, seeded with a demo account.

Options:
  --port <n>            port to listen on (default 4010; 0 picks a free one)
  --host <address>      address to bind (default 127.0.0.1; other addresses print a warning)
  --seed <n>            seed of the demo data: the same seed gives the same data (default 1)
  --plan <plan>         plan of the demo account: free, pro or enterprise (default pro)
  --keys-file <path>    write {base_url, control_url, account_id, secret_key, publishable_key} as JSON (mode 600)
  --state-file <path>   keep all state in this file across restarts (written atomically before each response)
  --admin-token <token> require this bearer token on the control plane (/_mock/), which then also
                        answers non-loopback clients
  --allowed-hosts <list> host names the control plane, dashboard and docs answer besides localhost,
                        *.localhost, IP addresses and --host (comma-separated; '.example.dev' allows
                        example.dev and every name under it); other Host headers get 403 (DNS rebinding)
  --max-connections <n> connections held at once (default 1024, or 3/4 of the descriptors left after
                        64 when fewer); past it the longest-idle one is closed, or 503 when all are busy
  --quiet               print only the first line (the base URL)
  -h, --help            show this help

Endpoints: <base>/v1 (the API), <base>/_mock (control plane), <base>/_mock/docs, <base>/_mock/dashboard.`

export interface RunningMock {
  server: Server
  platform: MockPlatform
  baseUrl: string
  close(): Promise<void>
}

interface MockFlags {
  port: number
  host: string
  seed: number
  plan: 'free' | 'pro' | 'enterprise'
  keysFile?: string
  stateFile?: string
  adminToken?: string
  /** Names the control plane answers besides loopback ones, IP addresses and `host` (`parseAllowedHost` forms). */
  allowedHosts: string[]
  /** Connections held at once; undefined: `defaultMaxConnections()`. */
  maxConnections?: number
  quiet: boolean
}

export function parseMockFlags(argv: string[]): MockFlags | 'help' {
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        seed: { type: 'string' },
        plan: { type: 'string' },
        'keys-file': { type: 'string' },
        'state-file': { type: 'string' },
        'admin-token': { type: 'string' },
        'allowed-hosts': { type: 'string' },
        'max-connections': { type: 'string' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0] ?? 'Bad arguments.')
  }
  const values = parsed.values as Record<string, string | boolean | undefined>
  if (values.help) return 'help'
  const text = (name: string) => values[name] as string | undefined
  const adminToken = text('admin-token')
  if (adminToken !== undefined && adminToken.length < 16)
    throw new UsageError('--admin-token must be at least 16 characters long.')
  return {
    port: integerFlag('port', text('port'), 4010, 0, 65535),
    host: text('host') ?? '127.0.0.1',
    seed: integerFlag('seed', text('seed'), 1, 0, 2 ** 31 - 1),
    plan: choiceFlag('plan', text('plan'), 'pro', ['free', 'pro', 'enterprise'] as const),
    keysFile: text('keys-file'),
    stateFile: text('state-file'),
    adminToken,
    allowedHosts: allowedHostsFlag(text('allowed-hosts')),
    maxConnections:
      text('max-connections') === undefined
        ? undefined
        : integerFlag('max-connections', text('max-connections'), 0, 1, 65_535),
    quiet: values.quiet === true,
  }
}

/** `--allowed-hosts a.example,.dev.example` as normalised names; a usage error names a bad entry. */
function allowedHostsFlag(value: string | undefined): string[] {
  if (value === undefined) return []
  return value.split(',').map((entry) => {
    const host = parseAllowedHost(entry.trim())
    if (host === undefined)
      throw new UsageError(
        `--allowed-hosts takes host names without scheme or port, separated by commas ('.dev.example' allows every name under dev.example), got '${entry.trim()}'.`,
      )
    return host
  })
}

/** Key values from an earlier keys file, kept only if they still authenticate against the stored hashes. */
async function previousKeys(platform: MockPlatform, keysFile: string | undefined) {
  if (!keysFile || !existsSync(keysFile)) return {}
  try {
    const saved = JSON.parse(readFileSync(keysFile, 'utf8')) as {
      secret_key?: string
      publishable_key?: string
    }
    const check = async (value: string | undefined, id: string) =>
      value && (await platform.keys.find(value))?.record.id === id ? value : undefined
    return {
      secretKey: await check(saved.secret_key, platform.demo.secretKeyId),
      publishableKey: await check(saved.publishable_key, platform.demo.publishableKeyId),
    }
  } catch {
    return {}
  }
}

/**
 * Makes sure the keys file can be written before anything starts: its folder exists and it can be opened for
 * writing. An existing file is narrowed to mode 600 at once (it will hold key values). One-line errors.
 */
function prepareKeysFile(path: string): void {
  let fd: number
  try {
    fd = openSync(path, 'a', 0o600)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why =
      code === 'ENOENT'
        ? 'its folder does not exist'
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? 'it is not writable here'
          : code === 'EISDIR'
            ? 'it is a folder'
            : (error as Error).message
    throw new Error(`Cannot write the keys file ${path}: ${why}.`)
  }
  try {
    fchmodSync(fd, 0o600)
  } finally {
    closeSync(fd)
  }
}

/** Starts the mock server; resolves once it listens. */
export async function startMock(
  flags: MockFlags,
  log: (line: string) => void = console.log,
): Promise<RunningMock> {
  if (flags.keysFile) prepareKeysFile(flags.keysFile)
  const stateFile = flags.stateFile ? createStateFile(flags.stateFile) : undefined
  const snapshot = stateFile?.load()
  const pages: Record<string, () => Promise<EngineResponse> | EngineResponse> = {
    '/docs': docsPage,
    ...dashboardPages(),
  }
  const platform = await createMockPlatform({
    seed: flags.seed,
    plan: flags.plan,
    adminToken: flags.adminToken,
    // The name the mock was told to listen on is its own too (an address needs no entry).
    allowedHosts: [...flags.allowedHosts, parseAllowedHost(flags.host) ?? []].flat(),
    snapshot,
    pages,
    // The saved clock offset comes back too, so expiry and timestamps carry on where they were.
    clock: snapshot ? createClock({ offsetSeconds: snapshot.clock_offset_seconds }) : undefined,
  })
  if (stateFile && !snapshot) await stateFile.save(platform.snapshot)

  // `Location` is built from the base URL printed below; on a wildcard address (0.0.0.0, ::) from the
  // address each connection reached. Never from the Host header.
  let publicBaseUrl: string | undefined
  const server = createHttpServer(() => platform, {
    beforeSend: stateFile ? persistChanges(platform, stateFile) : undefined,
    baseUrl: () => publicBaseUrl,
    maxConnections: flags.maxConnections,
  })
  const { port } = await listen(server, flags.port, flags.host)
  const hostForUrl = flags.host.includes(':') ? `[${flags.host}]` : flags.host
  const origin = `http://${hostForUrl}:${port}`
  const baseUrl = `${origin}/v1`
  if (!isWildcardHost(flags.host)) publicBaseUrl = baseUrl
  const known = snapshot ? await previousKeys(platform, flags.keysFile) : platform.demo
  const secretKey = known.secretKey
  const publishableKey = known.publishableKey

  // Written before the banner, so that a script that waits for the banner finds the file complete.
  if (flags.keysFile) {
    const keys = {
      base_url: baseUrl,
      control_url: `${origin}/_mock`,
      account_id: platform.demo.account.id,
      secret_key: secretKey ?? null,
      publishable_key: publishableKey ?? null,
    }
    try {
      // Owner-only, never through a link: the file holds the demo keys' values.
      await writeFileAtomically(flags.keysFile, `${JSON.stringify(keys, null, 2)}\n`)
    } catch (error) {
      server.close()
      server.closeAllConnections()
      throw new Error(`Cannot write the keys file ${flags.keysFile}: ${(error as Error).message}`)
    }
  }
  log(`voice-api-kit mock listening on ${baseUrl}`)
  if (!flags.quiet) {
    log(
      `  account          ${platform.demo.account.id} (${platform.demo.account.plan} plan, seed ${flags.seed})`,
    )
    log(
      `  control plane    ${origin}/_mock${flags.adminToken ? ' (admin token required)' : ' (loopback only)'}`,
    )
    log(`  docs             ${origin}/_mock/docs   dashboard ${origin}/_mock/dashboard`)
    if (stateFile) log(`  state file       ${stateFile.path}${snapshot ? ' (restored)' : ' (new)'}`)
    if (flags.keysFile) log(`  keys file        ${flags.keysFile}`)
    log('demo keys, shown once (paste into your shell):')
    const unknown = '# unchanged since the state file was created: see the keys file'
    log(secretKey ? `  export SECRET_KEY=${secretKey}` : `  ${unknown} (secret key)`)
    log(publishableKey ? `  export PUBLISHABLE_KEY=${publishableKey}` : `  ${unknown} (publishable key)`)
  }
  if (!isLoopbackHost(flags.host))
    log(
      `warning: listening on ${flags.host}, not loopback: anyone who can reach this address can use the mock API.`,
    )
  return {
    server,
    platform,
    baseUrl,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

import { isIP } from 'node:net'
import { parseArgs } from 'node:util'
import { parseAllowedHost } from '../../mocks/engine/control/host-check.ts'
import { argumentProblem, choiceFlag, integerFlag, UsageError } from '../usage-error.ts'
import { type StoreSpec, storeFlag } from './store-spec.ts'

export const MOCK_HELP = `Usage: voice-api-kit mock [options]

Starts the stateful mock of the voice agent platform's v1 API, seeded with a demo account.

Options:
  --port <n>            port to listen on (default 4010; 0 picks a free one)
  --host <address>      address to bind (default 127.0.0.1; other addresses print a warning)
  --seed <n>            seed of the demo data: the same seed gives the same data (default 1)
  --plan <plan>         plan of the demo account: free, pro or enterprise (default pro)
  --keys-file <path>    write {base_url, control_url, account_id, secret_key, publishable_key} as JSON (mode 600)
  --state-file <path>   keep all state across restarts: a snapshot at <path> and a log of changes at
                        <path>.log, each change durable before its response (same as --store file:<path>)
  --store <store>       where the state lives: memory (default), file:<path>, or redis://host:port/db
                        (or redis-cluster://host:port[,host:port...]) to share one state between
                        several mock processes
  --from-capsule <file> start from a capsule (GET /_mock/capsule of any mock, or the dashboard's "Download
                        capsule"): its accounts, keys (the ones made there keep working), data, clock,
                        scenarios and calls; with --state-file or --store it replaces the stored state.
                        Its seed is used (not with --seed)
  --admin-token <token> require this bearer token on the control plane (/_mock/), which then also
                        answers non-loopback clients
  --allowed-hosts <list> host names the control plane, dashboard and docs answer besides localhost,
                        *.localhost, IP addresses and --host (comma-separated; '.example.dev' allows
                        example.dev and every name under it); other Host headers get 403 (DNS rebinding)
  --webhook-hosts <list> hosts the mock may send webhooks to besides loopback addresses and localhost
                        (comma-separated names or addresses; '.example.dev' allows every name under it);
                        a webhook_url elsewhere is never contacted, and its delivery says why
  --max-connections <n> connections held at once (default 1024, or 3/4 of the descriptors left after
                        64 when fewer); past it the longest-idle one is closed (a request body that
                        has not moved for 1 s counts as idle), or 503 when all are busy
  --quiet               print only the first line (the base URL)
  -h, --help            show this help

Endpoints: <base>/v1 (the API), <base>/_mock (control plane), <base>/_mock/docs, <base>/_mock/dashboard.`

export interface MockFlags {
  port: number
  host: string
  seed: number
  plan: 'free' | 'pro' | 'enterprise'
  keysFile?: string
  store: StoreSpec
  /** A capsule file to start from (`--from-capsule`). */
  fromCapsule?: string
  adminToken?: string
  /** Names the control plane answers besides loopback ones, IP addresses and `host` (`parseAllowedHost` forms). */
  allowedHosts: string[]
  /** Hosts webhooks may be sent to besides loopback ones (`parseAllowedHost` forms or IP addresses). */
  webhookHosts: string[]
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
        store: { type: 'string' },
        'from-capsule': { type: 'string' },
        'admin-token': { type: 'string' },
        'allowed-hosts': { type: 'string' },
        'max-connections': { type: 'string' },
        'webhook-hosts': { type: 'string' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (error) {
    throw new UsageError(argumentProblem(error))
  }
  const values = parsed.values as Record<string, string | boolean | undefined>
  if (values.help) return 'help'
  const text = (name: string) => values[name] as string | undefined
  const fromCapsule = text('from-capsule')
  if (fromCapsule === '') throw new UsageError('--from-capsule needs the path of a capsule file.')
  if (fromCapsule !== undefined && text('seed') !== undefined)
    throw new UsageError('Give --from-capsule or --seed, not both: the capsule brings its seed.')
  const adminToken = text('admin-token')
  if (adminToken !== undefined && adminToken.length < 16)
    throw new UsageError('--admin-token must be at least 16 characters long.')
  return {
    port: integerFlag('port', text('port'), 4010, 0, 65535),
    host: text('host') ?? '127.0.0.1',
    seed: integerFlag('seed', text('seed'), 1, 0, 2 ** 31 - 1),
    plan: choiceFlag('plan', text('plan'), 'pro', ['free', 'pro', 'enterprise'] as const),
    keysFile: text('keys-file'),
    store: storeFlag(text('store'), text('state-file')),
    fromCapsule,
    adminToken,
    allowedHosts: allowedHostsFlag(text('allowed-hosts')),
    webhookHosts: webhookHostsFlag(text('webhook-hosts')),
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

/** `--webhook-hosts a.example,.dev.example,10.0.0.5` as normalised names or addresses. */
function webhookHostsFlag(value: string | undefined): string[] {
  if (value === undefined) return []
  return value.split(',').map((entry) => {
    const trimmed = entry.trim().replace(/^\[(.*)\]$/, '$1')
    if (isIP(trimmed) !== 0) return trimmed.toLowerCase()
    const host = parseAllowedHost(trimmed)
    if (host === undefined)
      throw new UsageError(
        `--webhook-hosts takes host names or addresses without scheme or port, separated by commas ('.dev.example' allows every name under dev.example), got '${entry.trim()}'.`,
      )
    return host
  })
}

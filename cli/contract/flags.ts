import { parseArgs } from 'node:util'
import { AREAS } from '../../contracts/checks/types.ts'
import type { OptionNames } from '../../contracts/target/option-names.ts'
import { parseOriginKey, parseScopedKey, plan, TargetError } from '../../contracts/target/resolve-target.ts'
import type { TargetConfig } from '../../contracts/target/target.ts'
import { argumentProblem } from '../usage-error.ts'

/** `voice-api-kit contract --help`. */
export const CONTRACT_HELP = `Usage: voice-api-kit contract --base-url <url> [options]

Runs the contract (conformance) suite against an implementation of the v1 API and reports per area.
Read-only unless --destructive. Keys are best given in environment variables (they never appear in reports).

Target:
  --base-url <url>         base URL with /v1 (VOICE_API_BASE_URL; default http://127.0.0.1:4010/v1)
  --secret-key <key>       secret key of the account under test (VOICE_API_KEY; required without --provision)
  --publishable-key <key>  a publishable key of the account (VOICE_API_PUBLISHABLE_KEY)
  --revoked-key <key>      a revoked key (VOICE_API_REVOKED_KEY)
  --expired-key <key>      a key past its expires_at (VOICE_API_EXPIRED_KEY)
  --scoped-key <s>=<key>   a key holding the scopes <s> (comma separated; 'read', 'write', 'none' allowed);
                           repeatable (VOICE_API_SCOPED_KEYS, space separated)
  --origin-key <o>=<key>   a key restricted to the origin <o> (VOICE_API_ORIGIN_KEY)
  --plan <plan>            free, pro or enterprise (VOICE_API_PLAN; default: read from GET /user)
  --provision mock         create accounts, keys, revocations and clock moves through the mock's control plane
                           (VOICE_API_PROVISION)
  --mock-control-url <u>   the mock's control plane (VOICE_API_MOCK_CONTROL_URL; default <base-url
                           without /v1>/_mock), e.g. when the suite goes through prism proxy
  --mock-admin-token <t>   the mock's --admin-token (VOICE_API_MOCK_ADMIN_TOKEN)
  --config <file>          JSON or YAML file with the same settings (camelCase: baseUrl, secretKey, ...)
  --contract <file>        the contract to check against (default: this package's openapi/v1.yaml)

Run:
  --destructive            allow writes (POST, PATCH, DELETE) and rate-limit checks (VOICE_API_DESTRUCTIVE=1)
  --stateless              the target is a stateless mock (prism mock): run the stateless subset only
                           (default: detected with one request)
  --area <list>            only these areas: responses, authentication, authorization, resources, bad-input,
                           rate-limits, webhooks
  --budget <n>             most requests to send (VOICE_API_BUDGET; default 80% of the hourly quota left)
  --max-wait <s>           longest wait to honour Retry-After (VOICE_API_MAX_WAIT; default 60)

Report:
  --reporter <name>        summary (on the console unless verbose is asked for), verbose (one line per
                           check), junit (JUnit XML), html (one self-contained page: results by area,
                           failures, API coverage); repeatable
  --output <file>          where junit or html writes (defaults contract-results.xml, contract-report.html);
                           with both: --output junit=<file> --output html=<file>
  -h, --help               show this help

Exit code: 0 when checks passed and none failed; 1 when a check failed, when no check passed, when the run
could not start (target unreachable, key refused) or a report could not be written; 2 for a usage error.`

/** The settings as the command's messages name them: its flags, and the variables where there is one. */
export const FLAG_NAMES: OptionNames = {
  baseUrl: '--base-url',
  secretKey: '--secret-key or VOICE_API_KEY',
  publishableKey: '--publishable-key or VOICE_API_PUBLISHABLE_KEY',
  provisionMock: '--provision mock',
  mockControlUrl: '--mock-control-url',
  mockAdminToken: '--mock-admin-token',
  maxWait: '--max-wait',
}

/** The command's reporters: two print, two write a file. */
export const REPORTERS = ['summary', 'verbose', 'junit', 'html'] as const
export type ReporterName = (typeof REPORTERS)[number]

/** Where a file reporter writes unless `--output` says otherwise. */
export const DEFAULT_OUTPUT = { junit: 'contract-results.xml', html: 'contract-report.html' } as const

export interface ContractFlags {
  target: Partial<TargetConfig>
  config?: string
  reporters: ReporterName[]
  /** The file each file reporter writes (only for the file reporters asked for). */
  outputs: { junit?: string; html?: string }
}

/** Parses the command's flags; `'help'` for --help. Throws TargetError for a bad flag. */
export function parseContractFlags(argv: string[]): ContractFlags | 'help' {
  let values: Record<string, string | boolean | string[] | undefined>
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'base-url': { type: 'string' },
        'secret-key': { type: 'string' },
        'publishable-key': { type: 'string' },
        'revoked-key': { type: 'string' },
        'expired-key': { type: 'string' },
        'scoped-key': { type: 'string', multiple: true },
        'origin-key': { type: 'string' },
        plan: { type: 'string' },
        provision: { type: 'string' },
        'mock-admin-token': { type: 'string' },
        'mock-control-url': { type: 'string' },
        config: { type: 'string' },
        contract: { type: 'string' },
        destructive: { type: 'boolean' },
        stateless: { type: 'boolean' },
        area: { type: 'string', multiple: true },
        budget: { type: 'string' },
        'max-wait': { type: 'string' },
        reporter: { type: 'string', multiple: true },
        output: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    }).values as typeof values
  } catch (error) {
    throw new TargetError(argumentProblem(error))
  }
  if (values.help) return 'help'
  const text = (name: string) => values[name] as string | undefined
  const list = (name: string) => ((values[name] as string[] | undefined) ?? []).flatMap((v) => v.split(','))
  const whole = (name: string) => {
    const value = text(name)
    if (value === undefined) return undefined
    if (!/^[0-9]+$/.test(value)) throw new TargetError(`--${name} must be a whole number, got '${value}'.`)
    return Number(value)
  }
  const reporters = list('reporter')
  for (const reporter of reporters)
    if (!(REPORTERS as readonly string[]).includes(reporter))
      throw new TargetError(`--reporter must be ${REPORTERS.join(', ')}, got '${reporter}'.`)
  const areas = list('area')
  for (const area of areas)
    if (!(area in AREAS))
      throw new TargetError(`--area must be among ${Object.keys(AREAS).join(', ')}, got '${area}'.`)
  // The console always tells how the run goes (progress, waits, the summary), whatever files are written.
  const chosen = [...new Set(reporters)] as ReporterName[]
  if (!chosen.includes('verbose') && !chosen.includes('summary')) chosen.unshift('summary')
  const target: Partial<TargetConfig> = {
    baseUrl: text('base-url'),
    secretKey: text('secret-key'),
    publishableKey: text('publishable-key'),
    revokedKey: text('revoked-key'),
    expiredKey: text('expired-key'),
    scopedKeys: (values['scoped-key'] as string[] | undefined)?.map(parseScopedKey),
    originKey: text('origin-key') === undefined ? undefined : parseOriginKey(text('origin-key') as string),
    plan: plan(text('plan')),
    provision: text('provision') as TargetConfig['provision'],
    mockAdminToken: text('mock-admin-token'),
    mockControlUrl: text('mock-control-url'),
    contractPath: text('contract'),
    destructive: values.destructive === true ? true : undefined,
    stateless: values.stateless === true ? true : undefined,
    areas: areas.length > 0 ? areas : undefined,
    budget: whole('budget'),
    maxWaitSeconds: whole('max-wait'),
  }
  return {
    target,
    config: text('config'),
    reporters: chosen,
    outputs: outputsOf((values.output as string[] | undefined) ?? [], chosen),
  }
}

/**
 * `--output <file>` for the one file reporter, or `--output junit=<file> --output html=<file>`; a file reporter
 * without one writes to its file in `defaults`. Throws TargetError for an --output that names no file reporter.
 */
export function outputsOf(
  given: readonly string[],
  reporters: readonly string[],
  defaults: { junit: string; html: string } = DEFAULT_OUTPUT,
): ContractFlags['outputs'] {
  const files = reporters.filter((r): r is 'junit' | 'html' => r === 'junit' || r === 'html')
  const outputs: ContractFlags['outputs'] = {}
  const plain: string[] = []
  for (const value of given) {
    const named = /^(junit|html)=(.+)$/.exec(value)
    if (named) {
      const reporter = named[1] as 'junit' | 'html'
      if (!files.includes(reporter))
        throw new TargetError(`--output ${reporter}=... needs --reporter ${reporter}.`)
      outputs[reporter] = named[2]
    } else plain.push(value)
  }
  if (plain.length > 0) {
    const open = files.filter((r) => outputs[r] === undefined)
    if (files.length === 0)
      throw new TargetError(
        '--output needs a reporter that writes a file: --reporter junit or --reporter html.',
      )
    if (plain.length > 1 || open.length !== 1)
      throw new TargetError(
        'junit and html each write a file: name them with --output junit=<file> --output html=<file>.',
      )
    outputs[open[0] as 'junit' | 'html'] = plain[0]
  }
  for (const reporter of files) outputs[reporter] ??= defaults[reporter]
  return outputs
}

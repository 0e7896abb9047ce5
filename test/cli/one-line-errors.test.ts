import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runContractCommand } from '../../cli/contract/contract-command.ts'
import { cleanEnv, startMockServer } from '../support/contract-command.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
/** Nothing listens there: a run that sends a request says it cannot reach it. */
const NOWHERE = 'http://127.0.0.1:9/v1'

/**
 * What is wrong with the punctuation of one line the command printed: a doubled full stop (`provided..`,
 * an ellipsis `...` aside), a full stop before a colon (`(GET /user).:`), or a hint glued to a sentence
 * without its full stop (`'--bogus-flag' See --help`). Empty when the line reads right.
 */
function punctuationFaults(line: string): string[] {
  const faults: string[] = []
  if (/(?<!\.)\.\.(?!\.)/.test(line)) faults.push('a doubled full stop')
  if (/\.:/.test(line)) faults.push('a full stop before a colon')
  if (/[^.?!] See --help/.test(line)) faults.push('no full stop before "See --help"')
  return faults
}

/** Runs `voice-api-kit <args>` (the sources) and resolves with its exit code and what it printed. */
function runCli(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `${ROOT}cli/main.ts`, ...args], {
      cwd: ROOT,
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.on('error', reject)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** Runs `tasks` at most `width` at a time (the machine has two cores). */
async function inBatches<T>(tasks: (() => Promise<T>)[], width = 4): Promise<T[]> {
  const results: T[] = []
  for (let i = 0; i < tasks.length; i += width)
    results.push(...(await Promise.all(tasks.slice(i, i + width).map((task) => task()))))
  return results
}

describe('punctuationFaults', () => {
  it.each([
    ['The secret key is not accepted: No valid API key provided.. Check --secret-key.', 1],
    [
      'GET http://x/v1/user answered 404: route_not_found, Unrecognized request URL (GET /user).: the base URL',
      1,
    ],
    ["voice-api-kit: Unknown option '--bogus-flag' See --help.", 1],
    ["voice-api-kit: Unknown option '--bogus-flag'. See --help.", 0],
    ['The secret key (secretKey) is a publishable key (pk-svc-...): give it as publishableKey.', 0],
  ])('%s: %i fault(s)', (line, count) => {
    expect(punctuationFaults(line)).toHaveLength(count)
  })
})

describe('every one-line usage error of the command', () => {
  const cases: string[][] = [
    ['serve'],
    ['mock', '--bogus-flag'],
    ['mock', 'extra'],
    ['mock', '--port'],
    ['mock', '--port', 'abc'],
    ['mock', '--port', '70000'],
    ['mock', '--plan', 'gold'],
    ['mock', '--admin-token', 'short'],
    ['mock', '--store', 'ftp://x'],
    ['mock', '--max-connections', '0'],
    ['mock', '--webhook-hosts', 'http://x/'],
    ['mock', '--allowed-hosts', 'a b'],
    ['contract', '--bogus-flag'],
    ['contract', 'extra'],
    ['contract', '--budget', 'x', '--provision', 'mock'],
    ['contract', '--reporter', 'pdf', '--provision', 'mock'],
    ['contract', '--area', 'nope', '--provision', 'mock'],
    ['contract', '--base-url', 'ftp://x/v1', '--provision', 'mock'],
    ['contract', '--base-url', 'not a url', '--provision', 'mock'],
    ['contract', '--provision', 'maybe'],
    ['contract', '--output', 'x.xml', '--provision', 'mock'],
    ['contract', '--scoped-key', 'no-scopes', '--provision', 'mock'],
    ['contract', '--origin-key', 'nowhere', '--provision', 'mock'],
    ['contract', '--plan', 'gold', '--provision', 'mock'],
    ['contract', '--config', '/no/such/file.yaml'],
    ['contract', '--base-url', NOWHERE],
    ['webhooks', 'bogus'],
    ['webhooks', 'test-receiver'],
    ['webhooks', 'test-receiver', '--url', 'http://127.0.0.1:9/hooks'],
    ['webhooks', 'test-receiver', '--bogus-flag'],
    ['webhooks', 'test-receiver', 'extra'],
    [
      'webhooks',
      'test-receiver',
      '--url',
      'http://127.0.0.1:9/hooks',
      '--secret',
      'whsec_c2VjcmV0',
      '--timeout',
      'x',
    ],
    [
      'webhooks',
      'test-receiver',
      '--url',
      'http://127.0.0.1:9/hooks',
      '--secret',
      'whsec_c2VjcmV0',
      '--reporter',
      'pdf',
    ],
    ['prism', '--bogus-flag'],
    ['prism', 'extra'],
    ['prism', '--port', 'x'],
    ['proxy'],
    ['proxy', '--bogus-flag'],
    ['proxy', 'not-a-url'],
    ['proxy', 'ftp://example.com/v1'],
    ['proxy', 'http://example.com/v2'],
  ]
  let runs: Awaited<ReturnType<typeof runCli>>[]
  beforeAll(async () => {
    runs = await inBatches(cases.map((args) => () => runCli(args)))
  }, 180_000)

  it.each(cases.map((args, i) => [args.join(' '), i] as const))(
    'voice-api-kit %s: one line, exit code 2, punctuated',
    (_, i) => {
      const run = runs[i] as (typeof runs)[number]
      const lines = run.stderr.trim().split('\n')
      expect(lines, run.stderr).toHaveLength(1)
      expect(run.code).toBe(2)
      expect(lines[0]).toMatch(/^voice-api-kit( contract| webhooks( test-receiver)?)?: .+ See --help\.$/)
      expect(punctuationFaults(lines[0] ?? '')).toEqual([])
    },
  )
})

describe('every one-line error of a contract run that cannot start', () => {
  let mock: Awaited<ReturnType<typeof startMockServer>>
  let guarded: Awaited<ReturnType<typeof startMockServer>>
  beforeAll(async () => {
    ;[mock, guarded] = await Promise.all([
      startMockServer(),
      startMockServer({ adminToken: 'a-token-of-sixteen-chars' }),
    ])
  })
  afterAll(() => Promise.all([mock.close(), guarded.close()]))

  /** The command in this process, with what it printed on each stream. */
  async function contract(args: string[]) {
    const out: string[] = []
    const err: string[] = []
    const code = await runContractCommand(args, {
      out: (text) => out.push(text),
      err: (text) => err.push(text),
    })
    return { code, out, err }
  }

  const UNKNOWN_KEY = `sk-svc-${'x'.repeat(40)}`
  const PUBLISHABLE = `pk-svc-${'x'.repeat(40)}`
  const demoKey = () => mock.platform.demo.secretKey ?? ''

  async function revokedKey(): Promise<string> {
    const account = mock.platform.demo.account.id
    const { key, value } = await mock.platform.createKey(account, { type: 'secret', name: 'revoked' })
    const revoked = await fetch(`${mock.origin}/_mock/keys/${key.id}/revoke`, { method: 'POST' })
    expect(revoked.status).toBe(200)
    return value
  }

  const runs: [string, () => Promise<string[]>][] = [
    ['a key the target does not know', async () => ['--base-url', mock.baseUrl, '--secret-key', UNKNOWN_KEY]],
    ['a revoked key', async () => ['--base-url', mock.baseUrl, '--secret-key', await revokedKey()]],
    ['a base URL without /v1', async () => ['--base-url', mock.origin, '--secret-key', demoKey()]],
    ['a target that does not answer', async () => ['--base-url', NOWHERE, '--secret-key', UNKNOWN_KEY]],
    ['a publishable key as the secret key', async () => ['--base-url', NOWHERE, '--secret-key', PUBLISHABLE]],
    [
      'a control plane that asks for the admin token',
      async () => ['--base-url', guarded.baseUrl, '--provision', 'mock'],
    ],
    [
      'a control plane that is not one',
      async () => [
        '--base-url',
        mock.baseUrl,
        '--provision',
        'mock',
        '--mock-control-url',
        `${mock.baseUrl}/agents`,
      ],
    ],
  ]

  it.each(runs)(
    '%s: one line on stderr, nothing else, exit code 1, punctuated',
    async (_, args) => {
      const run = await contract(await args())
      expect(run.out).toEqual([])
      expect(run.err).toHaveLength(1)
      expect(run.code).toBe(1)
      expect(run.err[0]).toMatch(/^voice-api-kit contract: /)
      expect(punctuationFaults(run.err[0] ?? '')).toEqual([])
    },
    30_000,
  )
})

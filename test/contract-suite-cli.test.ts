import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseContractFlags } from '../cli/contract/flags.ts'
import {
  finishTarget,
  mergeTargets,
  parseScopedKey,
  TargetError,
  targetFromEnv,
  targetFromFile,
} from '../contracts/target/resolve-target.ts'

import { runCommand, startMockServer } from './support/contract-command.ts'

const KEY = `sk-svc-${'k'.repeat(40)}`

describe('voice-api-kit contract: target configuration', () => {
  it('reads flags, with scoped keys expanded from their groups', () => {
    const flags = parseContractFlags([
      '--base-url',
      'https://api.example.com/v1',
      '--scoped-key',
      `read=${KEY}`,
      '--destructive',
      '--area',
      'authentication,rate-limits',
      '--reporter',
      'junit',
      '--output',
      'out.xml',
    ])
    if (flags === 'help') throw new Error('unexpected help')
    expect(flags.target.baseUrl).toBe('https://api.example.com/v1')
    expect(flags.target.scopedKeys?.[0]?.scopes).toEqual([
      'agents:read',
      'call_logs:read',
      'analytics:read',
      'integrations:read',
    ])
    expect(flags.target.destructive).toBe(true)
    expect(flags.target.areas).toEqual(['authentication', 'rate-limits'])
    expect(flags.reporters).toEqual(['summary', 'junit'])
    expect(flags.outputs).toEqual({ junit: 'out.xml' })
  })

  it('reads VOICE_API_* environment variables', () => {
    const target = targetFromEnv({
      VOICE_API_BASE_URL: 'http://127.0.0.1:4010/v1',
      VOICE_API_KEY: KEY,
      VOICE_API_DESTRUCTIVE: '1',
      VOICE_API_SCOPED_KEYS: `agents:read=${KEY} none=${KEY}`,
      VOICE_API_PLAN: 'free',
    })
    expect(target).toMatchObject({ secretKey: KEY, destructive: true, plan: 'free' })
    expect(target.scopedKeys?.map((k) => k.scopes)).toEqual([['agents:read'], []])
  })

  it('lets flags win over the environment, and the environment over a config file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'contract-suite-'))
    const file = join(dir, 'target.yaml')
    writeFileSync(file, 'baseUrl: https://file.example/v1\nplan: pro\nbudget: 50\n')
    const merged = mergeTargets(
      targetFromFile(file),
      { plan: 'free' },
      { baseUrl: 'https://flag.example/v1' },
    )
    expect(merged).toMatchObject({ baseUrl: 'https://flag.example/v1', plan: 'free', budget: 50 })
  })

  it('requires a secret key unless it provisions the mock', () => {
    expect(() => finishTarget({ baseUrl: 'http://127.0.0.1:4010/v1' })).toThrow(TargetError)
    expect(finishTarget({ provision: 'mock' }).baseUrl).toBe('http://127.0.0.1:4010/v1')
  })

  it('refuses a scoped key without its scopes', () => {
    expect(() => parseScopedKey(KEY)).toThrow(TargetError)
  })

  it('takes --output for the one file reporter, or junit=<file> and html=<file> for both', () => {
    const one = parseContractFlags(['--reporter', 'html', '--output', 'r.html'])
    const both = parseContractFlags([
      '--reporter',
      'junit,html',
      '--output',
      'junit=r.xml',
      '--output',
      'html=r.html',
    ])
    const defaults = parseContractFlags(['--reporter', 'summary,junit,html'])
    expect(one !== 'help' && one.outputs).toEqual({ html: 'r.html' })
    expect(both !== 'help' && both.outputs).toEqual({ junit: 'r.xml', html: 'r.html' })
    expect(defaults !== 'help' && defaults.outputs).toEqual({
      junit: 'contract-results.xml',
      html: 'contract-report.html',
    })
    expect(() => parseContractFlags(['--reporter', 'junit,html', '--output', 'r.xml'])).toThrow(TargetError)
    expect(() => parseContractFlags(['--output', 'r.xml'])).toThrow(TargetError)
  })
})

describe('voice-api-kit contract: usage errors', () => {
  it('prints its help with exit code 0', async () => {
    const run = await runCommand(['--help'])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Usage: voice-api-kit contract')
    expect(run.stdout).toContain('--reporter <name>')
  }, 30_000)

  const cases: [string, string[], RegExp][] = [
    ['an unknown flag', ['--no-such-flag'], /Unknown option '--no-such-flag'/],
    ['an unknown area', ['--provision', 'mock', '--area', 'nope'], /--area must be among responses/],
    ['a base URL that is not http(s)', ['--provision', 'mock', '--base-url', 'ftp://x/v1'], /must be http/],
    ['an unknown reporter', ['--provision', 'mock', '--reporter', 'pdf'], /--reporter must be summary/],
    [
      'an --output in a folder that does not exist',
      ['--provision', 'mock', '--reporter', 'junit', '--output', '/no/such/folder/results.xml'],
      /--output \/no\/such\/folder\/results\.xml: the folder \/no\/such\/folder does not exist/,
    ],
    [
      'an --output that is a folder',
      ['--provision', 'mock', '--reporter', 'html', '--output', '.'],
      /that is a folder/,
    ],
    ['no key and no provisioning', [], /A secret key is required/],
  ]
  it('answers each usage error with one line on stderr and exit code 2, before any request', async () => {
    // Nothing listens on port 9: a usage error must be found before the first request is sent.
    const runs = await Promise.all(
      cases.map(([, args]) =>
        runCommand([
          ...args,
          ...(args.includes('--base-url') ? [] : ['--base-url', 'http://127.0.0.1:9/v1']),
        ]),
      ),
    )
    runs.forEach((run, i) => {
      const [what, , message] = cases[i] as (typeof cases)[number]
      expect(run.code, what).toBe(2)
      expect(run.stderr.trim().split('\n'), what).toHaveLength(1)
      expect(run.stderr, what).toMatch(message)
      expect(run.stderr, what).not.toMatch(/\n\s+at /)
      expect(run.stdout, what).toBe('')
    })
  }, 60_000)
})

describe('voice-api-kit contract: a run against the mock', () => {
  let mock: Awaited<ReturnType<typeof startMockServer>>
  beforeAll(async () => {
    mock = await startMockServer()
  })
  afterAll(() => mock.close())

  it('runs every check with its own runner, prints the summary and writes JUnit and HTML whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'contract-cli-'))
    const junit = join(dir, 'results.xml')
    const html = join(dir, 'report.html')
    const run = await runCommand([
      '--base-url',
      mock.baseUrl,
      '--provision',
      'mock',
      '--destructive',
      '--explore-sequences',
      '5',
      '--reporter',
      'summary,junit,html',
      '--output',
      `junit=${junit}`,
      '--output',
      `html=${html}`,
    ])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/Total: \d{3} passed, 0 failed, 0 skipped, 0 not applicable/)
    expect(run.stdout).toMatch(/Requests: \d+ sent to the API/)
    // Nothing waits for a rate limit (an enterprise account, no budget): the only waits are those of the checks
    // that need time to pass (a second: an update after its agent's creation, keys younger than their account,
    // objects made during a walk newer than those before it, twice; a call under way, then completed).
    expect(run.stdout).toMatch(/Waiting: [\d.]+ s in 6 wait\(s\)/)
    expect(run.stdout.match(/ {2}waiting 1 s for a second to pass, /g)).toHaveLength(4)
    expect(run.stdout).toMatch(
      / {2}waiting 2 s for the range around the call to end while the call is under way/,
    )
    expect(run.stdout).toMatch(/ {2}waiting 3 s for the call to complete/)
    expect(run.stdout).not.toMatch(/waiting .* for the (burst|hourly) window/)
    expect(run.stdout).toMatch(
      /Coverage: \d+ of \d+ documented \(operation, status\) pairs \(\d+%\) exercised/,
    )
    expect(run.stdout).toContain(`JUnit report written to ${junit}`)
    expect(readFileSync(junit, 'utf8')).toMatch(
      /<testsuites name="voice-api-kit contract suite" tests="\d+" failures="0"/,
    )
    expect(readFileSync(html, 'utf8')).toMatch(/^<!doctype html>/)
    expect(readdirSync(dir).sort()).toEqual(['report.html', 'results.xml'])
  }, 120_000)

  it('says in its teardown how far the run moved the mock clock, and how to put it back', async () => {
    const before = mock.platform.clock.offsetSeconds()
    const run = await runCommand([
      '--base-url',
      mock.baseUrl,
      '--provision',
      'mock',
      '--destructive',
      '--area',
      'webhooks',
    ])
    expect(run.stderr).toBe('')
    const moved = mock.platform.clock.offsetSeconds() - before
    expect(moved).toBeGreaterThan(60)
    expect(run.stdout).toContain(
      `The run moved the mock's clock forward by ${moved.toLocaleString('en-US')} s`,
    )
    expect(run.stdout).toContain('POST /_mock/reset puts it back')
    expect(run.stdout).not.toContain('is as it was')
  }, 120_000)
})

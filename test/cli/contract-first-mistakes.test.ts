import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { formatSummary } from '../../contracts/report/summary.ts'
import { ConfigError, openSession } from '../../contracts/runner/session.ts'
import { cleanEnv, runCommand, startMockServer } from '../support/contract-command.ts'

/** QA's first mistakes with `voice-api-kit contract`, and what the command answers. */
describe('voice-api-kit contract: a QA engineer’s first run', () => {
  let mock: Awaited<ReturnType<typeof startMockServer>>
  beforeAll(async () => {
    mock = await startMockServer()
  })
  afterAll(() => mock.close())

  const journal = async () => {
    const response = await fetch(`${mock.origin}/_mock/journal?limit=100`)
    return ((await response.json()) as { data: unknown[] }).data.length
  }

  it('stops before any request with one line naming the publishable key given as VOICE_API_KEY', async () => {
    const publishable = mock.platform.demo.publishableKey ?? ''
    expect(publishable).toMatch(/^pk-svc-/)
    const before = await journal()
    const run = await runCommand([], {
      env: cleanEnv({ VOICE_API_BASE_URL: mock.baseUrl, VOICE_API_KEY: publishable }),
    })
    expect(run.stdout).toBe('')
    const lines = run.stderr.trim().split('\n')
    expect(lines).toEqual([
      "voice-api-kit contract: The secret key (--secret-key or VOICE_API_KEY) is a publishable key (pk-svc-...): the suite needs the account's secret key (sk-svc-...); give the publishable key as --publishable-key or VOICE_API_PUBLISHABLE_KEY.",
    ])
    expect(run.stderr).not.toContain(publishable.slice(7))
    expect(run.code).toBe(1)
    expect(await journal()).toBe(before)
    // The journal does count a request to the API: the run sent none.
    await fetch(`${mock.baseUrl}/user`, { headers: { authorization: `Bearer ${publishable}` } })
    expect(await journal()).toBe(before + 1)
  }, 60_000)

  it('prints progress and the summary on the console with --reporter html alone', async () => {
    const html = join(mkdtempSync(join(tmpdir(), 'contract-html-')), 'report.html')
    const run = await runCommand([
      '--base-url',
      mock.baseUrl,
      '--provision',
      'mock',
      '--area',
      'authentication',
      '--reporter',
      'html',
      '--output',
      html,
    ])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const lines = run.stdout.split('\n')
    expect(lines[0]).toMatch(/^Contract suite against http:\/\/127\.0\.0\.1:\d+\/v1 \(/)
    expect(lines).toContainEqual(expect.stringMatching(/^\.+$/))
    expect(run.stdout).toMatch(/\nTotal: \d+ passed, 0 failed/)
    expect(run.stdout).toContain(`HTML report written to ${html}`)
    expect(readFileSync(html, 'utf8')).toMatch(/^<!doctype html>/)
  }, 120_000)
})

describe('the summary', () => {
  const entries = [
    {
      id: 'a',
      area: 'authentication' as const,
      group: 'keys',
      title: 'a check',
      status: 'passed' as const,
      durationMs: 3,
      requests: 119,
    },
  ]
  const stats = { requests: 121, counted: 107, cacheHits: 74, waits: 0, waitedMs: 0 }

  it('gives one count of requests: what the run sent, with what the rate limit counted of it', () => {
    const summary = formatSummary(entries, 'run', 1000, { stats })
    expect(summary.match(/\d[\d,]* (requests\b|sent\b)/g)).toEqual(['121 sent'])
    expect(summary).toContain('Requests: 121 sent to the API (107 counted by its rate limit')
  })

  it('says what the checks sent when the run’s own figures are not there', () => {
    const summary = formatSummary(entries, 'run', 1000)
    expect(summary).toContain(
      'Total: 1 passed, 0 failed, 0 skipped, 0 not applicable (119 requests sent by the checks)',
    )
  })
})

describe('the library and the Vitest entry', () => {
  const commandWords = /--secret-key|--publishable-key|--provision|--base-url|--mock-|--max-wait|VOICE_API_/

  it.each([
    [
      'a publishable key as secretKey',
      { baseUrl: 'http://127.0.0.1:9/v1', secretKey: `pk-svc-${'x'.repeat(40)}` },
      /secretKey.*publishableKey/,
    ],
    ['no secretKey', { baseUrl: 'http://127.0.0.1:9/v1' }, /secretKey.*provision: 'mock'/],
    [
      'a target that does not answer',
      { baseUrl: 'http://127.0.0.1:9/v1', secretKey: `sk-svc-${'x'.repeat(40)}` },
      /is baseUrl right\?/,
    ],
    [
      'a control plane that does not answer',
      { baseUrl: 'http://127.0.0.1:9/v1', provision: 'mock' as const },
      /is baseUrl \(or mockControlUrl\) right\?/,
    ],
  ])('name their own options for %s, never the command’s flags', async (_, target, names) => {
    const error = await openSession(target).then(
      () => undefined,
      (failure: unknown) => failure,
    )
    expect(error).toBeInstanceOf(ConfigError)
    const message = (error as Error).message
    expect(message).toMatch(names)
    expect(message).not.toMatch(commandWords)
  })
})

import { mkdirSync, mkdtempSync, readdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeReportFile } from '../cli/contract/report-file.ts'
import { describeNetworkError } from '../contracts/http/errors.ts'
import { runChecks } from '../contracts/runner/run-checks.ts'
import { ConfigError } from '../contracts/runner/session.ts'
import { createMockPlatform } from '../mocks/platform.ts'
import { engineFetch } from './mutants/engine-fetch.ts'
import { runCommand, startMockServer } from './support/contract-command.ts'

// Issue 13, part 4: a run that verified nothing, could not reach its target or could not write its report
// must say so and fail, once, instead of reporting green (or one identical failure per check).

const BASE_URL = 'http://honest.test/v1'
const KEY = `sk-svc-${'H'.repeat(40)}`

const answer = (status: number, body: unknown, type = 'application/json') =>
  new Response(typeof body === 'string' ? body : JSON.stringify(body), {
    status,
    headers: { 'content-type': type, 'request-id': 'req_Honest1' },
  })

describe('runChecks: the first request decides whether the run can start', () => {
  const cases: [string, typeof fetch, RegExp][] = [
    [
      'a target that refuses connections',
      async () => {
        throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })
      },
      /^Cannot reach http:\/\/honest\.test\/v1: ECONNREFUSED \(connection refused\)\. Is the target running/,
    ],
    [
      'a base URL that routes nowhere',
      async () =>
        answer(404, { error: { type: 'not_found_error', code: 'route_not_found', message: 'No route.' } }),
      /^GET http:\/\/honest\.test\/v1\/user answered 404: route_not_found, No route: the base URL must be where the v1 API starts/,
    ],
    [
      'prism mock behind a base URL ending in /v1',
      async () =>
        answer(404, {
          type: 'https://stoplight.io/prism/errors#NO_PATH_MATCHED_ERROR',
          title: 'Route not resolved',
        }),
      /^Prism answered GET .* with 404 \(NO_PATH_MATCHED_ERROR\).*origin without \/v1 \(http:\/\/honest\.test\)/,
    ],
    [
      'a target answering 503',
      async () => answer(503, { error: { type: 'api_error', code: 'unavailable', message: 'down' } }),
      /answered 503: unavailable, down: the target is not healthy, so no check ran/,
    ],
    [
      'a web page where the API should be',
      async () => answer(200, '<!doctype html><p>Welcome</p>', 'text/html'),
      /answered 200 with text\/html, not JSON/,
    ],
  ]
  it.each(cases)('stops with one message that names the cause for %s', async (_, fetch, message) => {
    const run = runChecks({ baseUrl: BASE_URL, secretKey: KEY, fetch })
    await expect(run).rejects.toThrow(ConfigError)
    await expect(run).rejects.toThrow(message)
  })

  it('names a revoked key as the cause, without echoing it', async () => {
    const platform = await createMockPlatform()
    const key = platform.demo.secretKey as string
    await platform.handle({
      method: 'POST',
      url: `/_mock/keys/${platform.demo.secretKeyId}/revoke`,
      headers: {},
      body: null,
      clientIp: '127.0.0.1',
    })
    const error = await runChecks({
      baseUrl: BASE_URL,
      secretKey: key,
      fetch: engineFetch(() => platform, BASE_URL),
    })
      .then(() => undefined)
      .catch((e: unknown) => e as Error)
    expect(error).toBeInstanceOf(ConfigError)
    expect(error?.message).toMatch(
      /^The secret key is not accepted: GET .*\/user answered 401: invalid_api_key, .*revoked/,
    )
    expect(error?.message).not.toContain(key)
  })

  it('names an unreachable control plane when it provisions the mock', async () => {
    const fetch: typeof globalThis.fetch = async () => {
      throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })
    }
    await expect(runChecks({ baseUrl: BASE_URL, provision: 'mock', fetch })).rejects.toThrow(
      /^Cannot reach the mock's control plane at http:\/\/honest\.test\/_mock: ECONNREFUSED/,
    )
  })
})

describe('runChecks: a target that stops answering during the run', () => {
  it('stops at the first check that lost the connection instead of failing every check after it', async () => {
    const platform = await createMockPlatform()
    const inner = engineFetch(() => platform, BASE_URL)
    let sent = 0
    const fetch: typeof globalThis.fetch = async (input, init) => {
      if (++sent > 20) throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } })
      return inner(input, init)
    }
    const result = await runChecks({ baseUrl: BASE_URL, secretKey: platform.demo.secretKey as string, fetch })
    const failed = result.outcomes.filter((o) => o.status === 'failed')
    expect(failed).toHaveLength(1)
    expect(failed[0]?.failure?.actual).toMatch(/no answer from GET .*: ECONNRESET \(connection reset\)/)
    expect(result.aborted?.reason).toMatch(/^Cannot reach http:\/\/honest\.test\/v1: ECONNRESET/)
    expect(result.aborted?.notRun.length).toBeGreaterThan(50)
  })
})

describe('describeNetworkError', () => {
  it('says what an EPIPE means: the target closed while the body was still going out', () => {
    expect(describeNetworkError(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBe(
      'EPIPE (the target closed the connection while the body was still being sent, without a lingering close)',
    )
  })
})

describe('writeReportFile', () => {
  it('writes a report whole, or leaves nothing behind and says why', () => {
    const dir = mkdtempSync(join(tmpdir(), 'contract-report-'))
    expect(writeReportFile(join(dir, 'ok.xml'), '<testsuites/>')).toBeUndefined()
    mkdirSync(join(dir, 'taken'))
    expect(writeReportFile(join(dir, 'taken'), '<testsuites/>')).toMatch(
      /^could not write .*taken \(E[A-Z]+\)$/,
    )
    expect(readdirSync(dir).sort()).toEqual(['ok.xml', 'taken'])
  })
})

describe('voice-api-kit contract: false greens fail with one clear line', () => {
  let mock: Awaited<ReturnType<typeof startMockServer>>
  beforeAll(async () => {
    mock = await startMockServer()
  })
  afterAll(() => mock.close())

  it('fails a run in which no check passed (every check skipped), exit code 1', async () => {
    const run = await runCommand(['--base-url', mock.baseUrl, '--area', 'rate-limits'], {
      env: { ...process.env, VOICE_API_KEY: mock.platform.demo.secretKey as string } as Record<
        string,
        string
      >,
    })
    // The 12 that spend the rate limit are skipped; rate-limits/used-up-window finds the windows with room
    // (the run never used one up) and is not applicable.
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('Total: 0 passed, 0 failed, 12 skipped, 1 not applicable')
    expect(run.stderr.trim().split('\n')).toHaveLength(1)
    expect(run.stderr).toMatch(
      /No check passed \(13 ran: 12 skipped, 1 not applicable\): nothing was verified/,
    )
  }, 60_000)

  it('stops before the first check when the key is refused, naming the cause once, exit code 1', async () => {
    const run = await runCommand(['--base-url', mock.baseUrl], {
      env: { ...process.env, VOICE_API_KEY: `sk-svc-${'R'.repeat(40)}` } as Record<string, string>,
    })
    expect(run.code).toBe(1)
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^voice-api-kit contract: The secret key is not accepted: .* answered 401: invalid_api_key/,
      ),
    ])
    expect(run.stderr).not.toContain('R'.repeat(40))
    expect(run.stdout).toBe('')
  }, 60_000)

  it('stops before the first check when nothing listens at the base URL, exit code 1', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const { port } = blocker.address() as { port: number }
    await new Promise<void>((resolve) => blocker.close(() => resolve()))
    const run = await runCommand(['--base-url', `http://127.0.0.1:${port}/v1`, '--provision', 'mock'])
    expect(run.code).toBe(1)
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^voice-api-kit contract: Cannot reach the mock's control plane at .*ECONNREFUSED/,
      ),
    ])
  }, 60_000)
})

import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanEnv } from '../support/contract-command.ts'
import { BROKEN, correctReceiver, type Handler, serve } from './receivers.ts'

/**
 * `voice-api-kit webhooks test-receiver` as users run it: `bin/voice-api-kit.js`, the build in dist/
 * (`npm run build`, which `npm test` runs first), against receivers served over HTTP on loopback.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const SECRET = `whsec_${randomBytes(24).toString('base64')}`
const PREVIOUS = `whsec_${randomBytes(24).toString('base64')}`
const STALE_BUILD = /dist\/ is missing or older than the sources/

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function runBuilt(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/voice-api-kit.js', 'webhooks', ...args], {
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
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('error', reject)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** Neither the secret nor its base64 part appears in `texts`. */
function expectNoSecret(...texts: string[]) {
  for (const text of texts)
    for (const secret of [SECRET, PREVIOUS]) {
      expect(text).not.toContain(secret)
      expect(text).not.toContain(secret.slice('whsec_'.length))
    }
}

/** A receiver that counts what reaches it. */
function counted(inner: Handler) {
  let count = 0
  const handler: Handler = (request) => {
    count++
    return inner(request)
  }
  return { handler, count: () => count }
}

let correct: Awaited<ReturnType<typeof serve>>
let acceptsAll: Awaited<ReturnType<typeof serve>>
const hits = counted(correctReceiver(SECRET).handler)
const skipsVerification = BROKEN[0]

beforeAll(async () => {
  correct = await serve(hits.handler)
  acceptsAll = await serve(skipsVerification?.make(SECRET).handler as Handler)
})
afterAll(async () => {
  await correct?.close()
  await acceptsAll?.close()
})

describe('voice-api-kit webhooks test-receiver (the build)', () => {
  it('answers --help with exit 0, and lists the command in the webhooks help', async () => {
    const help = await runBuilt(['test-receiver', '--help'])
    expect(help.stderr).not.toMatch(STALE_BUILD)
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('Usage: voice-api-kit webhooks test-receiver --url <receiver URL>')
    const webhooks = await runBuilt(['--help'])
    expect(webhooks.code).toBe(0)
    expect(webhooks.stdout).toContain('test-receiver')
    const bare = await runBuilt([])
    expect(bare.code).toBe(2)
  }, 60_000)

  it('exits 0 for a correct receiver, with a line per check, the summary and the reports', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'vak-receiver-'))
    const junit = join(folder, 'results.xml')
    const html = join(folder, 'report.html')
    const run = await runBuilt([
      'test-receiver',
      '--url',
      correct.url,
      '--secret',
      SECRET,
      '--previous-secret',
      PREVIOUS,
      '--reporter',
      'summary,junit,html',
      '--output',
      `junit=${junit}`,
      '--output',
      `html=${html}`,
    ])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`Webhook receiver test against ${correct.url}`)
    expect(run.stdout.match(/^ok {3}/gm)).toHaveLength(17)
    expect(run.stdout).toContain('Total: 17 passed, 0 failed')
    const xml = readFileSync(junit, 'utf8')
    const page = readFileSync(html, 'utf8')
    expect(xml).toContain('tests="17" failures="0"')
    expect(page).toContain('Passed: 17 passed')
    expectNoSecret(run.stdout, run.stderr, xml, page)
  }, 60_000)

  it('exits 1 for a receiver that answers 200 to everything, every refusal failed in the reports', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'vak-receiver-'))
    const junit = join(folder, 'results.xml')
    const html = join(folder, 'report.html')
    const run = await runBuilt(
      [
        'test-receiver',
        '--url',
        acceptsAll.url,
        '--reporter',
        'summary,junit,html',
        '--output',
        `junit=${junit}`,
        '--output',
        `html=${html}`,
      ],
      // The secrets from the environment (out of the process list).
      { VOICE_API_WEBHOOK_SECRET: SECRET, VOICE_API_WEBHOOK_PREVIOUS_SECRET: PREVIOUS },
    )
    expect(run.stderr).not.toMatch(STALE_BUILD)
    expect(run.code).toBe(1)
    expect(run.stdout.match(/^FAIL /gm)).toHaveLength(8)
    expect(run.stdout).toMatch(/x {2}Deliveries to refuse {2}8 failed/)
    expect(run.stdout).toContain('Actual:   204')
    expect(run.stdout).toContain('acknowledged a delivery it must refuse')
    const xml = readFileSync(junit, 'utf8')
    const page = readFileSync(html, 'utf8')
    expect(xml).toContain('tests="17" failures="8"')
    expect(page).toContain('Failed: 9 passed, 8 failed')
    expect(page).toContain('Reproduce with curl')
    expectNoSecret(run.stdout, run.stderr, xml, page)
  }, 60_000)

  it('exits 1 with one line when nothing listens at the URL', async () => {
    const gone = await serve(correctReceiver(SECRET).handler)
    await gone.close()
    const run = await runBuilt(['test-receiver', '--url', gone.url, '--secret', SECRET])
    expect(run.code).toBe(1)
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^voice-api-kit webhooks test-receiver: Nothing answered at .*ECONNREFUSED/),
    ])
    expectNoSecret(run.stdout, run.stderr)
  }, 60_000)

  const usage: [string, string[], RegExp][] = [
    ['no --url', ['--secret', SECRET], /--url is required/],
    ['no secret', ['--url', 'URL'], /--secret \(or VOICE_API_WEBHOOK_SECRET\) is required/],
    [
      'an API key as the secret',
      ['--url', 'URL', '--secret', `sk-svc-${'a'.repeat(40)}`],
      /whsec_ followed by base64/,
    ],
    [
      'a secret that is not base64',
      ['--url', 'URL', '--secret', 'whsec_@@@@@@@@@@'],
      /whsec_ followed by base64/,
    ],
    [
      'a URL that is not http',
      ['--url', 'ftp://127.0.0.1/x', '--secret', SECRET],
      /must be http:\/\/ or https:\/\//,
    ],
    [
      'a timeout of 0',
      ['--url', 'URL', '--secret', SECRET, '--timeout', '0'],
      /--timeout must be a number of seconds/,
    ],
    [
      'an unknown reporter',
      ['--url', 'URL', '--secret', SECRET, '--reporter', 'pdf'],
      /--reporter must be summary, junit, html/,
    ],
    [
      'an --output in a missing folder',
      ['--url', 'URL', '--secret', SECRET, '--reporter', 'junit', '--output', '/no/such/folder/r.xml'],
      /the folder \/no\/such\/folder does not exist/,
    ],
    ['a secret given without its flag', ['--url', 'URL', SECRET], /Unexpected argument 'whsec_\[redacted\]'/],
    ['an unknown flag', ['--url', 'URL', '--secret', SECRET, '--retries', '3'], /Unknown option '--retries'/],
  ]
  it.each(usage)(
    'exits 2 on %s with one line, sending nothing',
    async (_, args, message) => {
      const before = hits.count()
      const run = await runBuilt(['test-receiver', ...args.map((a) => (a === 'URL' ? correct.url : a))])
      expect(run.code).toBe(2)
      expect(run.stdout).toBe('')
      const lines = run.stderr.trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^voice-api-kit webhooks test-receiver: .* See --help\.$/)
      expect(lines[0]).toMatch(message)
      expect(hits.count()).toBe(before)
      expectNoSecret(run.stdout, run.stderr)
      expect(run.stderr).not.toContain('a'.repeat(40))
    },
    60_000,
  )
})

describe('testReceiver from the build (voice-api-kit/contracts as the package exports it)', () => {
  it('passes the correct receiver and fails the one that skips verification', async () => {
    const built = (await import(
      `${ROOT}dist/contracts/index.js`
    )) as typeof import('../../contracts/index.ts')
    const good = await built.testReceiver({ fetch: correctReceiver(SECRET).handler }, SECRET)
    expect(good.entries.filter((e) => e.status === 'failed')).toEqual([])
    const bad = await built.testReceiver(
      { fetch: skipsVerification?.make(SECRET).handler as Handler },
      SECRET,
    )
    expect(bad.entries.filter((e) => e.status === 'failed').map((e) => e.id)).toEqual(
      skipsVerification?.fails,
    )
    expect(built.formatReceiverSummary(bad)).toContain('Total: 9 passed, 8 failed')
  })
})

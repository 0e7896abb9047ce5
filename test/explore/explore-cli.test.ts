import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { Server } from 'node:http'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMockPlatform } from '../../mocks/platform.ts'
import { createHttpServer, listen } from '../../mocks/server/http-server.ts'
import { cleanEnv, runCommand } from '../support/contract-command.ts'
import { faultyPlatform, RELATIONAL_FAULTS } from './support/relational-faults.ts'

// `voice-api-kit contract --area explore` as users run it: the build (compiled here into a folder of its own),
// against the standalone mock of the same build, and against a faulty implementation served over HTTP.

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const OUT = join(ROOT, '.tmp', `explore-build-${process.pid}`)
const KEY_VALUE = /\b[sp]k-svc-[A-Za-z0-9]{12,}/

/** `voice-api-kit mock --port 0` of the build; resolves with its origin once it listens. */
function startBuiltMock(): Promise<{ origin: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(OUT, 'cli/main.js'), 'mock', '--port', '0'], {
    cwd: ROOT,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the mock did not start:\n${output}`)), 60_000)
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(output)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve({ origin: match[1], child })
      }
    })
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.once('exit', (code) => reject(new Error(`the mock exited (${code}):\n${output}`)))
  })
}

/** The script a failure printed in the summary (indented under its heading), as it was written. */
function scriptOf(stdout: string): string {
  const lines = stdout.split('\n')
  const start = lines.findIndex((l) => l.includes('Reproduce with this script'))
  const body: string[] = []
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('       ')) break
    body.push(line.slice(7))
  }
  return body.join('\n')
}

describe('voice-api-kit contract --area explore, from the build', () => {
  let mock: { origin: string; child: ChildProcess }
  let faultyServer: Server
  let faultyOrigin = ''
  let keysOf: () => string[]

  beforeAll(async () => {
    rmSync(OUT, { recursive: true, force: true })
    await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', OUT],
      { cwd: ROOT },
    )
    mkdirSync(join(OUT, 'openapi'), { recursive: true })
    for (const file of ['v1.yaml', 'mock-control.yaml'])
      copyFileSync(join(ROOT, 'openapi', file), join(OUT, 'openapi', file))
    mock = await startBuiltMock()
    // A deleted agent still answered by GET /agents/{id}: a fault no check names.
    const fault = RELATIONAL_FAULTS.find((f) => f.name === 'deleted-agent-readable')
    if (!fault) throw new Error('no such fault')
    const faulty = faultyPlatform(await createMockPlatform(), fault)
    keysOf = () => [...faulty.world.keys.keys()]
    faultyServer = createHttpServer(() => faulty)
    faultyOrigin = `http://127.0.0.1:${(await listen(faultyServer, 0, '127.0.0.1')).port}`
  }, 180_000)

  afterAll(async () => {
    mock?.child.kill('SIGTERM')
    await new Promise<void>((resolve) => {
      if (!faultyServer) return resolve()
      faultyServer.close(() => resolve())
      faultyServer.closeAllConnections()
    })
    rmSync(OUT, { recursive: true, force: true })
  })

  const run = (baseUrl: string, extra: string[]) =>
    runCommand(
      ['--base-url', baseUrl, '--provision', 'mock', '--destructive', '--area', 'explore', ...extra],
      {
        entry: join(OUT, 'cli/main.js'),
        timeoutMs: 120_000,
      },
    )

  it('passes against the standalone mock, printing its seed and progress', async () => {
    const result = await run(`${mock.origin}/v1`, ['--seed', '5', '--explore-time', '3'])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('Exploration: exploring with seed 5 (up to 3 s; replay with --seed 5)')
    expect(result.stdout).toMatch(
      /Exploration: no difference: \d+ sequence\(s\), \d+ request\(s\) in [\d.]+ s, seed 5/,
    )
    expect(result.stdout).toMatch(/ok Exploration\s+1 passed/)
    expect(result.stdout).toMatch(/Total: 1 passed, 0 failed/)
  }, 120_000)

  it('fails against a faulty implementation with numbered steps, reports and a script that reproduces it', async () => {
    const dir = join(OUT, 'reports')
    mkdirSync(dir, { recursive: true })
    const junit = join(dir, 'explore.xml')
    const html = join(dir, 'explore.html')
    const result = await run(`${faultyOrigin}/v1`, [
      '--seed',
      '10',
      '--explore-sequences',
      '30',
      '--reporter',
      'summary,junit,html',
      '--output',
      `junit=${junit}`,
      '--output',
      `html=${html}`,
    ])
    expect(result.code).toBe(1)
    const out = result.stdout
    expect(out).toContain('exploring with seed 10 (30 sequences; replay with --seed 10)')
    expect(out, out).toMatch(/x\s+Exploration\s+1 failed/)
    expect(out).toMatch(
      /Actual: {3}at step \d \(GET \/agents\/agt_\S+ \(read back\)\), status: target 200, model 404/,
    )
    expect(out).toMatch(/^ {7}\d\. DELETE \/agents\/agt_\S+ \(key: /m)
    expect(out).toContain('decided by getAgent 404: #/components/responses/NotFound')
    const script = scriptOf(out)
    expect(script).toMatch(/^#!\/bin\/sh/)
    expect(script).toContain('"Authorization: Bearer $EXPLORE_KEY_SECRET"')
    for (const text of [out, result.stderr, readFileSync(junit, 'utf8'), readFileSync(html, 'utf8')]) {
      expect(text).not.toMatch(KEY_VALUE)
      for (const key of keysOf()) expect(text).not.toContain(key)
    }
    expect(readFileSync(junit, 'utf8')).toContain('Steps:')
    expect(readFileSync(html, 'utf8')).toContain('Reproduce with this script')

    // The script replays the sequence against the faulty implementation: the deleted agent answers 200.
    writeFileSync(join(dir, 'replay.sh'), script)
    const replay = await promisify(execFile)('sh', [join(dir, 'replay.sh')], {
      env: { ...cleanEnv(), VOICE_API_BASE_URL: `${faultyOrigin}/v1` },
      timeout: 60_000,
    })
    const last = replay.stdout.slice(replay.stdout.lastIndexOf('--- '))
    expect(last).toMatch(/^--- \d\. DELETE \/agents\//)
    const answers = [...last.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((m) => m[1])
    expect(answers).toContain('200')
    expect(answers.at(-1)).toBe('200')
  }, 180_000)
})

import { type ChildProcess, spawn } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../', import.meta.url))

/**
 * A clone right after `npm ci`: the sources and node_modules, and no dist/ (the package has no install script
 * that would build it). The sources are links to this repository's; bin/ and package.json are copies, so that
 * the command finds its root here.
 */
function freshClone(): string {
  const clone = mkdtempSync(join(tmpdir(), 'vak-clone-'))
  for (const folder of ['cli', 'mocks', 'contracts', 'openapi', 'node_modules'])
    symlinkSync(join(ROOT, folder), join(clone, folder), 'dir')
  mkdirSync(join(clone, 'bin'))
  copyFileSync(join(ROOT, 'bin/voice-api-kit.js'), join(clone, 'bin/voice-api-kit.js'))
  copyFileSync(join(ROOT, 'package.json'), join(clone, 'package.json'))
  return clone
}

/** The environment of a shell: without this test's own npm and Vitest variables. */
function shellEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith('npm_') && !name.startsWith('VITEST') && name !== 'NODE_ENV') env[name] = value
  return { ...env, NO_COLOR: '1' }
}

describe('a fresh clone: npm ci && npm start', () => {
  let clone: string
  let npm: ChildProcess
  let output = ''
  let baseUrl = ''

  beforeAll(async () => {
    clone = freshClone()
    npm = spawn('npm', ['start', '--', '--port', '0', '--keys-file', 'keys.json'], {
      cwd: clone,
      env: shellEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      // A process group of its own, so that afterAll can stop whatever is left of it, whatever the test found.
      detached: true,
    })
    npm.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    npm.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    for (let i = 0; i < 600 && baseUrl === ''; i++) {
      baseUrl = /listening on (http:\/\/\S+\/v1)/.exec(output)?.[1] ?? ''
      if (npm.exitCode !== null) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }, 60_000)

  afterAll(() => {
    try {
      if (npm.pid) process.kill(-npm.pid, 'SIGKILL')
    } catch {
      // the group is gone: nothing left running
    }
    rmSync(clone, { recursive: true, force: true })
  })

  it('serves the demo account from the sources, saying in one line that there is no build yet', async () => {
    expect(baseUrl, output).not.toBe('')
    expect(output).toContain(
      'voice-api-kit: no build in dist/ yet; running the sources through tsx (npm run build makes one, which starts faster).',
    )
    const keys = JSON.parse(readFileSync(join(clone, 'keys.json'), 'utf8')) as { secret_key: string }
    const user = await fetch(`${baseUrl}/user`, { headers: { authorization: `Bearer ${keys.secret_key}` } })
    expect(user.status).toBe(200)
  })

  it('stops when npm is killed (kill <pid of npm start>), instead of running on without it', async () => {
    expect(baseUrl, output).not.toBe('')
    const npmExited = new Promise((resolve) => npm.once('exit', resolve))
    npm.kill('SIGTERM')
    await npmExited
    let answering = true
    for (let i = 0; i < 50 && answering; i++) {
      answering = await fetch(`${baseUrl}/user`).then(
        () => true,
        () => false,
      )
      if (answering) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(answering, 'the mock still answers 5 s after npm was killed').toBe(false)
  }, 20_000)
})

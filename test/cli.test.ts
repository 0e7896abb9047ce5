import { type ChildProcess, spawn } from 'node:child_process'
import { chmodSync, closeSync, mkdtempSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'

const CLI = ['--import', 'tsx', 'cli/main.ts']

interface Run {
  child: ChildProcess
  output: () => string
  exit: Promise<number | null>
}

function run(args: string[]): Run {
  const child = spawn(process.execPath, [...CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, output: () => output, exit }
}

async function listening(started: Run): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const match = /listening on (http:\/\/\S+\/v1)/.exec(started.output())
    if (match?.[1]) return match[1]
    if (started.child.exitCode !== null) throw new Error(started.output())
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`the mock did not start:\n${started.output()}`)
}

async function printed(started: Run, text: string): Promise<void> {
  for (let i = 0; i < 100 && !started.output().includes(text); i++)
    await new Promise((r) => setTimeout(r, 20))
}

const running: Run[] = []
afterEach(() => {
  for (const r of running.splice(0)) r.child.kill('SIGKILL')
})

describe('voice-api-kit mock', () => {
  it('starts, prints the base URL and keys, writes the keys file, serves the demo account and stops on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vak-cli-'))
    const keysFile = join(dir, 'keys.json')
    const mock = run(['mock', '--port', '0', '--keys-file', keysFile, '--seed', '7', '--plan', 'free'])
    running.push(mock)
    const baseUrl = await listening(mock)
    const keys = JSON.parse(readFileSync(keysFile, 'utf8'))
    expect(keys).toMatchObject({ base_url: baseUrl, control_url: baseUrl.replace(/\/v1$/, '/_mock') })
    expect(keys.secret_key).toMatch(/^sk-svc-[A-Za-z0-9]{32,}$/)
    expect(keys.publishable_key).toMatch(/^pk-svc-[A-Za-z0-9]{32,}$/)
    expect(statSync(keysFile).mode & 0o777).toBe(0o600)
    // The banner reaches the pipe in more than one chunk: the keys may follow the line that names the URL.
    await printed(mock, keys.secret_key)
    expect(mock.output()).toContain(keys.secret_key)
    const user = await fetch(`${baseUrl}/user`, { headers: { authorization: `Bearer ${keys.secret_key}` } })
    expect(user.status).toBe(200)
    expect(await user.json()).toMatchObject({ id: keys.account_id, plan: 'free' })
    mock.child.kill('SIGTERM')
    expect(await mock.exit).toBe(0)
  })

  it('serves the HTML reference of the contract at /_mock/docs', async () => {
    const mock = run(['mock', '--port', '0'])
    running.push(mock)
    const baseUrl = await listening(mock)
    const docs = await fetch(baseUrl.replace(/\/v1$/, '/_mock/docs'))
    expect(docs.status).toBe(200)
    expect(docs.headers.get('content-type')).toContain('text/html')
    expect(await docs.text()).toContain('Voice Agent Platform API')
  }, 60_000)

  it('answers a taken port with one clear line and exit code 1', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const address = blocker.address()
    const port = typeof address === 'object' && address ? address.port : 0
    const mock = run(['mock', '--port', String(port)])
    running.push(mock)
    expect(await mock.exit).toBe(1)
    blocker.close()
    const lines = mock
      .output()
      .trim()
      .split('\n')
      .filter((l) => !l.includes('npm warn'))
    expect(lines).toEqual([expect.stringContaining(`Port ${port} on 127.0.0.1 is already in use`)])
  })

  it('writes the keys file with mode 600 even when it already existed with a wider mode', async () => {
    const keysFile = join(mkdtempSync(join(tmpdir(), 'vak-cli-')), 'keys.json')
    writeFileSync(keysFile, '{}\n')
    chmodSync(keysFile, 0o644)
    const mock = run(['mock', '--port', '0', '--keys-file', keysFile])
    running.push(mock)
    await listening(mock)
    expect(statSync(keysFile).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(keysFile, 'utf8')).secret_key).toMatch(/^sk-svc-/)
  })

  it('refuses a keys file in a folder that does not exist with one line and exit code 1, before serving', async () => {
    const keysFile = join(mkdtempSync(join(tmpdir(), 'vak-cli-')), 'no-such-folder', 'keys.json')
    const mock = run(['mock', '--port', '0', '--keys-file', keysFile])
    expect(await mock.exit).toBe(1)
    const lines = mock
      .output()
      .trim()
      .split('\n')
      .filter((l) => !l.includes('npm warn'))
    expect(lines).toEqual([
      `voice-api-kit: Cannot write the keys file ${keysFile}: its folder does not exist.`,
    ])
  })

  it('refuses a keys file that cannot be written with one line and exit code 1, before serving', async (ctx) => {
    // A read-only file even for root (the tests may run as root, for whom file modes do not apply).
    const readOnly = '/sys/kernel/notes'
    try {
      closeSync(openSync(readOnly, 'a'))
      ctx.skip('no file on this machine refuses writes to this user')
    } catch {
      // Refused, as wanted.
    }
    const mock = run(['mock', '--port', '0', '--keys-file', readOnly])
    expect(await mock.exit).toBe(1)
    expect(mock.output()).toContain(
      `voice-api-kit: Cannot write the keys file ${readOnly}: it is not writable here.`,
    )
    expect(mock.output()).not.toContain('listening on')
  })

  it.each([
    [['mock', '--prot', '4010'], /Unknown option '--prot'/],
    [['mock', '--port', 'abc'], /--port must be a whole number/],
    [['mock', '--plan', 'gold'], /--plan must be one of free, pro, enterprise/],
    [['serve'], /Unknown command 'serve'/],
  ])('answers %j with one line and exit code 2', async (args, message) => {
    const cli = run(args)
    expect(await cli.exit).toBe(2)
    const lines = cli.output().trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(message)
    expect(cli.output()).not.toMatch(/\n\s+at /)
  })

  it('prints help with every option', async () => {
    const cli = run(['mock', '--help'])
    expect(await cli.exit).toBe(0)
    for (const flag of [
      '--port',
      '--host',
      '--seed',
      '--plan',
      '--keys-file',
      '--state-file',
      '--admin-token',
    ])
      expect(cli.output()).toContain(flag)
  })
})

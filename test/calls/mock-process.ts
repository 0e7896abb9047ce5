import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A `voice-api-kit mock` process (sources through tsx) and what it printed. */
export interface MockProcess {
  child: ChildProcess
  output: () => string
  exit: Promise<number | null>
  /** The base URL it printed, ending in `/v1`. */
  baseUrl: string
  keys: { secret_key: string; account_id: string; control_url: string }
  stop(): Promise<void>
}

/**
 * Runs the CLI with `args`, without waiting for anything: the sources through tsx, or with `built` the command
 * users run (`bin/voice-api-kit.js`: the build in dist/, which `npm test` refreshes first).
 */
export function runCli(args: string[], built = false) {
  const entry = built ? ['bin/voice-api-kit.js'] : ['--import', 'tsx', 'cli/main.ts']
  const child = spawn(process.execPath, [...entry, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
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

/** Starts `voice-api-kit mock --port 0` with `args` and resolves once it listens. */
export async function startMockProcess(
  args: string[] = [],
  options: { built?: boolean; keysFile?: string } = {},
): Promise<MockProcess> {
  const keysFile = options.keysFile ?? join(mkdtempSync(join(tmpdir(), 'vak-calls-')), 'keys.json')
  const run = runCli(['mock', '--port', '0', '--keys-file', keysFile, ...args], options.built)
  for (let i = 0; i < 400; i++) {
    const match = /listening on (http:\/\/\S+\/v1)/.exec(run.output())
    // The banner's lines arrive one by one after "listening on": without --quiet, it ends with the publishable key.
    const whole = args.includes('--quiet') || /PUBLISHABLE_KEY=|\(publishable key\)/.test(run.output())
    if (match?.[1] && whole) {
      return {
        ...run,
        baseUrl: match[1],
        keys: JSON.parse(readFileSync(keysFile, 'utf8')),
        async stop() {
          if (run.child.exitCode === null) run.child.kill('SIGTERM')
          await run.exit
        },
      }
    }
    if (run.child.exitCode !== null) throw new Error(run.output())
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  run.child.kill('SIGKILL')
  throw new Error(`the mock did not start:\n${run.output()}`)
}

/** A JSON request to a running mock. */
export async function http(method: string, url: string, body?: unknown, key?: string) {
  const headers: Record<string, string> = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (key) headers.authorization = `Bearer ${key}`
  const response = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  // biome-ignore lint/suspicious/noExplicitAny: tests read bodies of many shapes
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as any }
}

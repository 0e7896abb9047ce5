import { spawn } from 'node:child_process'
import type { Server } from 'node:http'
import { fileURLToPath } from 'node:url'
import { createMockPlatform, type MockPlatform, type MockPlatformOptions } from '../../mocks/platform.ts'
import { createHttpServer, listen } from '../../mocks/server/http-server.ts'
import { runWebhooks } from '../../mocks/server/webhooks/run-webhooks.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** What a run of the command printed and how it exited. */
export interface CommandRun {
  code: number | null
  stdout: string
  stderr: string
}

/** The environment of a child without any `VOICE_API_*` variable of the developer's shell. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !name.startsWith('VOICE_API_')) env[name] = value
  return { ...env, ...extra }
}

/**
 * Runs `voice-api-kit contract <args>` in a child process, as a user runs it: by default the sources through
 * tsx (`cli/main.ts`); `entry` and `nodeArgs` run something else (the build, with a loader hook).
 */
export function runCommand(
  args: string[],
  options: { env?: Record<string, string>; entry?: string; nodeArgs?: string[]; timeoutMs?: number } = {},
): Promise<CommandRun> {
  const entry = options.entry ?? `${ROOT}cli/main.ts`
  const nodeArgs = options.nodeArgs ?? (entry.endsWith('.ts') ? ['--import', 'tsx'] : [])
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, entry, 'contract', ...args], {
      cwd: ROOT,
      env: options.env ?? cleanEnv(),
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
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000)
    child.on('error', reject)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** The mock behind node:http on a free port, delivering webhooks as the CLI's does, for the command to run against. */
export async function startMockServer(options: MockPlatformOptions = {}) {
  const platform: MockPlatform = await createMockPlatform({
    checkResponses: true,
    webhookDeliveries: true,
    ...options,
  })
  const webhooks = runWebhooks(platform)
  const server: Server = createHttpServer(() => platform)
  const { port } = await listen(server, 0, '127.0.0.1')
  return {
    platform,
    origin: `http://127.0.0.1:${port}`,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      await webhooks.stop()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    },
  }
}

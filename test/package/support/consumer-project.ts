import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const exec = promisify(execFile)
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const FIXTURES = fileURLToPath(new URL('../fixtures/consumer/', import.meta.url))

/** A Node.js to run consumer projects with: its PATH puts that Node (and npm/npx run by it) first. */
export interface Runtime {
  name: string
  /** `PATH` with this runtime's `node` first. */
  env: NodeJS.ProcessEnv
  /** The msw major version a project of this runtime installs. */
  msw: string
}

/** The Node.js this test runs on. */
export function currentRuntime(msw: string): Runtime {
  return { name: `Node ${process.versions.node}`, env: withNodeFirst(process.execPath), msw }
}

/** Node 24 from the npm registry (`npx -p node@24`), as the machine has no system Node 24. */
export async function registryRuntime(major: number, msw: string): Promise<Runtime> {
  const { stdout } = await exec(
    'npx',
    ['-y', '-p', `node@${major}`, '--', 'node', '-p', 'process.execPath'],
    {
      timeout: 180_000,
    },
  )
  const node = stdout.trim().split('\n').at(-1) ?? ''
  const env = withNodeFirst(node)
  const { stdout: version } = await exec('node', ['--version'], { env })
  return { name: `Node ${version.trim().slice(1)}`, env, msw }
}

/**
 * The environment of a user's shell: this test's own variables are left out (Vitest sets `NODE_ENV=test`, with
 * which a `vite build` would keep development-only code), and the runtime's `node` comes first on `PATH`.
 */
function withNodeFirst(node: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env))
    if (name !== 'NODE_ENV' && !name.startsWith('VITEST') && name !== 'TEST') env[name] = value
  return { ...env, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1' }
}

export interface CommandResult {
  code: number
  stdout: string
  stderr: string
}

/** Runs a command in a folder and resolves with its exit code and output (it never rejects on exit codes). */
export async function runIn(
  cwd: string,
  runtime: Runtime,
  command: string,
  args: string[],
  { timeoutMs = 180_000, env = {} }: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CommandResult> {
  try {
    const { stdout, stderr } = await exec(command, args, {
      cwd,
      env: { ...runtime.env, ...env },
      timeout: timeoutMs,
      maxBuffer: 64 << 20,
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string }
    return {
      code: typeof failed.code === 'number' ? failed.code : 1,
      stdout: failed.stdout ?? '',
      stderr: `${failed.stderr ?? ''}${typeof failed.code === 'string' ? `\n${failed.code}` : ''}`,
    }
  }
}

/** Lines of output that are not npm's own warnings about this machine's configuration. */
export function meaningful(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('npm warn') && !line.startsWith('npm WARN'))
}

/**
 * Packs the package as it would be published (the current build in dist/, without running any script) into
 * a temporary folder and resolves with the tarball's path. `npm test` builds right before the tests run.
 */
export async function packPackage(): Promise<string> {
  const destination = mkdtempSync(join(tmpdir(), 'vak-pack-'))
  const { stdout } = await exec(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', destination],
    { cwd: ROOT, maxBuffer: 64 << 20 },
  )
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string }[]
  if (!packed) throw new Error(`npm pack printed no file: ${stdout}`)
  return join(destination, packed.filename)
}

/**
 * A fresh project (`type: module`) in a temporary folder with the packed tarball and `dependencies` installed
 * from the npm cache where they are there (`--prefer-offline`), with the consumer fixtures copied in.
 */
export async function createProject(
  tarball: string,
  runtime: Runtime,
  dependencies: string[],
): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), 'vak-consumer-'))
  writeFileSync(
    join(folder, 'package.json'),
    `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`,
  )
  const installed = await runIn(folder, runtime, 'npm', [
    'install',
    tarball,
    ...dependencies,
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
  ])
  if (installed.code !== 0) throw new Error(`npm install failed in ${folder}:\n${installed.stderr}`)
  mkdirSync(join(folder, 'app'), { recursive: true })
  cpSync(FIXTURES, folder, { recursive: true })
  return folder
}

/** A running `npx voice-api-kit mock` of a consumer project. */
export interface StartedMock {
  child: ChildProcess
  baseUrl: string
  output(): string
  stop(): Promise<void>
}

/** Starts `npx voice-api-kit mock --port 0 ...` in the project; resolves once it prints its base URL. */
export async function startInstalledMock(
  cwd: string,
  runtime: Runtime,
  args: string[],
): Promise<StartedMock> {
  const child = spawn('npx', ['voice-api-kit', 'mock', '--port', '0', ...args], {
    cwd,
    env: runtime.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own: whatever the test found, `stop()` leaves nothing of it running.
    detached: true,
  })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null)
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      })
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL')
    } catch {
      // the group is gone: nothing of it runs any more
    }
  }
  for (let i = 0; i < 600; i++) {
    const match = /listening on (http:\/\/\S+\/v1)/.exec(output)
    if (match?.[1]) return { child, baseUrl: match[1], output: () => output, stop }
    if (child.exitCode !== null) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  await stop()
  throw new Error(`npx voice-api-kit mock did not start:\n${output}`)
}

/** Disk use of a folder in KiB, as `du -sk` counts it. */
export async function diskUsageKiB(folder: string): Promise<number> {
  const { stdout } = await exec('du', ['-sk', folder])
  return Number(stdout.split(/\s/)[0])
}

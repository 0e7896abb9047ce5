import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import { argumentProblem, integerFlag, UsageError } from '../usage-error.ts'
import { contractFile } from './contract-file.ts'

export const PRISM_HELP = `Usage: voice-api-kit prism [--port <n>] [--host <address>] [--dynamic]

Starts Prism's stateless mock of the v1 contract (openapi/v1.yaml): answers every documented operation from
the contract's examples, and honours Prism's Prefer header (Prefer: code=404, Prefer: example=<name>).
For a mock with real state (keys, rate limits, CRUD), use voice-api-kit mock.

  --port <n>         port (default 4011)
  --host <address>   address to bind (default 127.0.0.1)
  --dynamic          generate responses from the schemas instead of the named examples
  -h, --help         show this help

Prism is an optional peer of voice-api-kit: npm install --save-dev @stoplight/prism-cli@5`

export const PROXY_HELP = `Usage: voice-api-kit proxy <upstream> [--port <n>] [--host <address>] [--errors]

Starts Prism's validation proxy for the v1 contract in front of <upstream>, the base URL of any
implementation of the v1 API ending in /v1 (http://127.0.0.1:4010/v1, https://staging.example.com/v1).
Every request and response is checked against openapi/v1.yaml; violations are printed here and sent back
in the sl-violations response header.

  --port <n>         port of the proxy (default 4012)
  --host <address>   address to bind (default 127.0.0.1)
  --errors           answer requests or responses that violate the contract with an error
  -h, --help         show this help

Call the proxy without /v1: http://127.0.0.1:4012/agents.
Prism is an optional peer of voice-api-kit: npm install --save-dev @stoplight/prism-cli@5`

/** Prism is missing: a one-line message saying how to install it (exit code 1). */
export class PrismMissing extends Error {}

/** The path of Prism's command script, from the user's project first, then from beside this package. */
export function findPrism(from: string = process.cwd()): string {
  for (const base of [join(from, 'package.json'), import.meta.url]) {
    try {
      const manifest = createRequire(base).resolve('@stoplight/prism-cli/package.json')
      const { bin } = createRequire(base)(manifest) as { bin: string | Record<string, string> }
      return join(dirname(manifest), typeof bin === 'string' ? bin : (bin.prism ?? 'dist/index.js'))
    } catch {
      // Not installed there.
    }
  }
  throw new PrismMissing(
    "Prism is not installed. It is an optional peer of voice-api-kit: run 'npm install --save-dev @stoplight/prism-cli@5' and try again.",
  )
}

interface PrismFlags {
  help: boolean
  port: number
  host: string
  flag: boolean
  positionals: string[]
}

function parse(argv: string[], defaultPort: number, flagName: 'dynamic' | 'errors'): PrismFlags {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        [flagName]: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    })
    return {
      help: values.help === true,
      port: integerFlag('port', values.port as string | undefined, defaultPort, 0, 65535),
      host: (values.host as string | undefined) ?? '127.0.0.1',
      flag: values[flagName] === true,
      positionals,
    }
  } catch (error) {
    if (error instanceof UsageError) throw error
    throw new UsageError(argumentProblem(error))
  }
}

/** An upstream base URL: http(s), ending in /v1. */
function upstreamOf(positionals: string[]): string {
  const [upstream, ...extra] = positionals
  if (!upstream) throw new UsageError('The upstream base URL is missing: voice-api-kit proxy <upstream>.')
  if (extra.length > 0) throw new UsageError(`Unexpected argument '${extra[0]}'.`)
  let url: URL
  try {
    url = new URL(upstream)
  } catch {
    throw new UsageError(`'${upstream}' is not a URL.`)
  }
  if (!/^https?:$/.test(url.protocol))
    throw new UsageError(`The upstream must be an http(s) URL, got '${url.protocol}'.`)
  if (!url.pathname.replace(/\/+$/, '').endsWith('/v1'))
    throw new UsageError(`The upstream must be the API's base URL ending in /v1, got '${upstream}'.`)
  return url.href.replace(/\/+$/, '')
}

/** Runs Prism in the foreground until it exits (or the user interrupts it); resolves with its exit code. */
function runPrism(args: string[]): Promise<number> {
  const prism = findPrism()
  const child = spawn(process.execPath, [prism, ...args], { stdio: 'inherit' })
  const forward = (signal: NodeJS.Signals) => child.kill(signal)
  process.on('SIGINT', forward)
  process.on('SIGTERM', forward)
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward)
      process.off('SIGTERM', forward)
      resolve(code ?? (signal ? 0 : 1))
    })
  })
}

/** `voice-api-kit prism`: Prism's stateless mock of the v1 contract. */
export async function runPrismMock(argv: string[]): Promise<number> {
  const flags = parse(argv, 4011, 'dynamic')
  if (flags.help) {
    console.log(PRISM_HELP)
    return 0
  }
  if (flags.positionals.length > 0) throw new UsageError(`Unexpected argument '${flags.positionals[0]}'.`)
  const args = ['mock', contractFile('v1.yaml'), '--port', String(flags.port), '--host', flags.host]
  if (flags.flag) args.push('--dynamic')
  return runPrism(args)
}

/** `voice-api-kit proxy <upstream>`: Prism's validation proxy with the v1 contract. */
export async function runPrismProxy(argv: string[]): Promise<number> {
  const flags = parse(argv, 4012, 'errors')
  if (flags.help) {
    console.log(PROXY_HELP)
    return 0
  }
  const upstream = upstreamOf(flags.positionals)
  const args = [
    'proxy',
    contractFile('v1.yaml'),
    upstream,
    '--port',
    String(flags.port),
    '--host',
    flags.host,
  ]
  if (flags.flag) args.push('--errors')
  return runPrism(args)
}

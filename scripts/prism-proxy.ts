/**
 * `npm run proxy -- <upstream> [--port <n>] [--errors]`: Prism's validation proxy with the v1 contract
 * in front of any implementation. Clients call the proxy as they would call `<upstream>`; every
 * request and response is checked against `openapi/v1.yaml`, and violations are logged and returned
 * in the `sl-violations` header (or, with `--errors`, turned into error responses).
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const HELP = `Usage: npm run proxy -- <upstream> [--port <n>] [--host <address>] [--errors]

Starts Prism's validation proxy for openapi/v1.yaml in front of <upstream>, the base URL of any
implementation of the v1 API (ending in /v1), e.g. http://127.0.0.1:4010/v1 or https://staging.example.com/v1.

  --port <n>         port of the proxy (default 4012)
  --host <address>   address to bind (default 127.0.0.1)
  --errors           answer requests or responses that violate the contract with an error instead of passing them on
  -h, --help         show this help

Call the proxy at http://<host>:<port>/<path without /v1>, e.g. http://127.0.0.1:4012/agents.
Violations are printed here and sent back in the sl-violations response header.`

function fail(message: string): never {
  console.error(`proxy: ${message} See --help.`)
  process.exit(2)
}

let parsed: ReturnType<typeof parseArgs>
try {
  parsed = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: {
      port: { type: 'string', default: '4012' },
      host: { type: 'string', default: '127.0.0.1' },
      errors: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  })
} catch (error) {
  fail((error as Error).message.split('\n')[0] ?? 'bad arguments.')
}
const { values, positionals } = parsed
if (values.help) {
  console.log(HELP)
  process.exit(0)
}
const [upstream, ...extra] = positionals
if (!upstream) fail('the upstream base URL is missing.')
if (extra.length > 0) fail(`unexpected argument '${extra[0]}'.`)
let url: URL
try {
  url = new URL(upstream)
} catch {
  fail(`'${upstream}' is not a URL.`)
}
if (!/^https?:$/.test(url.protocol)) fail(`the upstream must be an http(s) URL, got '${url.protocol}'.`)
if (!url.pathname.replace(/\/+$/, '').endsWith('/v1'))
  fail(`the upstream must be the API's base URL ending in /v1, got '${upstream}'.`)
const port = String(values.port)
if (!/^\d+$/.test(port) || Number(port) > 65535) fail(`--port must be a port number, got '${port}'.`)

const root = fileURLToPath(new URL('..', import.meta.url))
const args = [
  'proxy',
  'openapi/v1.yaml',
  url.href.replace(/\/+$/, ''),
  '--port',
  port,
  '--host',
  String(values.host),
]
if (values.errors) args.push('--errors')
const child = spawn(`${root}node_modules/.bin/prism`, args, { cwd: root, stdio: 'inherit' })
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal))
child.on('exit', (code) => process.exit(code ?? 0))

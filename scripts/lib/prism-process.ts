import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

export interface PrismProcess {
  origin: string
  stop(): Promise<void>
}

/**
 * Starts `prism <args>` (e.g. `['mock', 'openapi/v1.yaml']` or `['proxy', 'openapi/v1.yaml', upstream]`)
 * on a free loopback port; resolves once it listens, rejects with its output if it does not start.
 */
export async function startPrism(args: string[], timeoutMs = 60_000): Promise<PrismProcess> {
  const port = await freePort()
  const child: ChildProcess = spawn(
    `${ROOT}node_modules/.bin/prism`,
    [...args, '--host', '127.0.0.1', '--port', String(port)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism ${args[0]} did not start:\n${output}`)), timeoutMs)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (/listening on/i.test(output)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`prism ${args[0]} exited with ${code}:\n${output}`))
    })
  })
  child.stdout?.resume()
  child.stderr?.resume()
  return {
    origin: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

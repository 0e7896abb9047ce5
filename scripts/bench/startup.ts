import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freePort } from '../lib/prism-process.ts'
import { spawnChild } from './children.ts'
import { waitFor200 } from './http-request.ts'
import {
  hasDistBuild,
  MOCK_DIST_MAIN,
  MOCK_TSX_ENTRY,
  PRISM_CLI,
  RESULTS_DIR,
  ROOT,
  V1_CONTRACT,
} from './paths.ts'
import { median, round } from './stats.ts'

/** Time from spawning a process to its first 200 on an authenticated `GET /agents`, over a few runs. */
export interface StartupFigures {
  label: string
  runsMs: number[]
  medianMs: number
  minMs: number
  note?: string
}

function figures(label: string, runsMs: number[], note?: string): StartupFigures {
  return {
    label,
    runsMs: runsMs.map((ms) => round(ms, 1)),
    medianMs: round(median(runsMs), 1),
    minMs: round(Math.min(...runsMs), 1),
    note,
  }
}

/** One cold start of the mock CLI: spawn, read the key it prints, retry until the first 200. */
export async function mockFirst200(entry: string[]): Promise<number> {
  const child = spawnChild('mock (startup)', [...entry, 'mock', '--port', '0'])
  try {
    const base = (await child.waitForLine(/listening on (http:\/\/\S+\/v1)/))[1] as string
    const key = (await child.waitForLine(/SECRET_KEY=(sk-svc-\S+)/))[1] as string
    return await waitFor200(
      `${base}/agents`,
      { headers: { authorization: `Bearer ${key}` } },
      child.startedAt,
      {
        intervalMs: 2,
      },
    )
  } finally {
    await child.stop()
  }
}

/** One cold start of `prism mock openapi/v1.yaml`, polled every 10 ms until its first 200. */
async function prismFirst200(): Promise<number> {
  const port = await freePort()
  const child = spawnChild('prism (startup)', [
    PRISM_CLI,
    'mock',
    V1_CONTRACT,
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
  ])
  try {
    return await waitFor200(
      `http://127.0.0.1:${port}/agents`,
      { headers: { authorization: 'Bearer sk-svc-bench' } },
      child.startedAt,
      { intervalMs: 10, timeoutMs: 60_000 },
    )
  } finally {
    await child.stop()
  }
}

/** The built CLI's node arguments and where it came from, or why there is none. */
export type BuiltEntry = { entry: string[]; note: string } | { skipped: string }

/** A node:http server that answers 200 at once: what starting Node alone costs on this machine now. */
const HELLO_SERVER = `require('node:http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', function () {
  console.log('hello listening on ' + this.address().port)
})`

/** One cold start of the hello server, to its first 200. */
async function helloFirst200(): Promise<number> {
  const child = spawnChild('node (startup)', ['-e', HELLO_SERVER])
  try {
    const port = (await child.waitForLine(/hello listening on (\d+)/))[1]
    return await waitFor200(`http://127.0.0.1:${port}/`, {}, child.startedAt, { intervalMs: 2 })
  } finally {
    await child.stop()
  }
}

/**
 * The built CLI: `dist/` when it is at least as new as the sources, otherwise a `tsc` build of the CLI into
 * `bench-results/build` (same compiler options as the project, emit on).
 */
export async function builtMockEntry(): Promise<BuiltEntry> {
  if (hasDistBuild()) return { entry: [MOCK_DIST_MAIN], note: 'dist/cli/main.js' }
  mkdirSync(RESULTS_DIR, { recursive: true })
  const config = join(RESULTS_DIR, 'tsconfig.build.json')
  writeFileSync(
    config,
    JSON.stringify({
      extends: '../tsconfig.json',
      compilerOptions: {
        noEmit: false,
        outDir: './build',
        rootDir: '..',
        sourceMap: false,
        declaration: false,
      },
      files: ['../cli/main.ts'],
      include: [],
    }),
  )
  const tsc = spawnChild('tsc', [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config])
  await new Promise((resolve) => tsc.process.once('exit', resolve))
  const main = join(RESULTS_DIR, 'build', 'cli', 'main.js')
  if (!existsSync(main)) return { skipped: 'no dist/ build, and tsc emitted no bench-results/build' }
  return { entry: [main], note: 'dist/ missing or older than the sources: tsc build to bench-results/build' }
}

/** First-200 times of the mock (through tsx, and built), of Prism and of a bare node:http server; `runs` cold starts each. */
export async function measureStartup(
  runs: number,
  built: BuiltEntry,
  log: (line: string) => void,
): Promise<StartupFigures[]> {
  const out: StartupFigures[] = []
  const time = async (label: string, once: () => Promise<number>, note?: string) => {
    const runsMs: number[] = []
    for (let i = 0; i < runs; i++) runsMs.push(await once())
    const result = figures(label, runsMs, note)
    log(`  ${label}: median ${result.medianMs} ms (runs ${result.runsMs.join(', ')})`)
    out.push(result)
  }
  await time('mock (node --import tsx)', () => mockFirst200(MOCK_TSX_ENTRY))
  if ('entry' in built) await time('mock (built JS)', () => mockFirst200(built.entry), built.note)
  else
    out.push({
      label: 'mock (built JS)',
      runsMs: [],
      medianMs: Number.NaN,
      minMs: Number.NaN,
      note: built.skipped,
    })
  await time('prism mock', prismFirst200)
  await time('bare node:http (baseline)', helloFirst200, 'Node start-up alone on this machine, for scale')
  return out
}

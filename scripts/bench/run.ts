/**
 * `npm run bench`: the mock, `prism mock` and a bare node:http server side by side on 127.0.0.1, each in
 * its own process, driven by autocannon under the same settings; then start-up, 100k-call-log list
 * latency and RSS, the MSW path and the contract suite. Prints Markdown tables; `--json <file>` also
 * writes the figures (and bench-results/latest.{json,md}).
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { captureResponse } from './capture.ts'
import { caseHeaders, LOAD_CASES } from './cases.ts'
import { installCleanup, removeOnExit } from './children.ts'
import { compareRatios, FIGURES_FILE, figuresOf, ratiosOf, readCommittedFigures } from './compare.ts'
import { measureContractSuite } from './contract-suite.ts'
import { BENCH_HELP, type BenchFlags, parseBenchFlags } from './flags.ts'
import { measureListLatency } from './list-latency.ts'
import { type LoadFigures, type LoadSettings, runLoad } from './load.ts'
import { measureMsw } from './msw-throughput.ts'
import { MOCK_TSX_ENTRY, RESULTS_DIR, ROOT } from './paths.ts'
import { type RatioSpread, ratioSpread } from './ratios.ts'
import { formatMarkdown } from './report.ts'
import type { BenchResults, LoadRow } from './results.ts'
import {
  type BenchServer,
  provisionWriteKeys,
  startBareServer,
  startMockServer,
  startPrismServer,
} from './servers.ts'
import { type BuiltEntry, builtMockEntry, measureStartup } from './startup.ts'
import { round } from './stats.ts'
import { measureStorage } from './storage.ts'
import { checkTargets } from './targets.ts'

const log = (line: string) => console.log(line)
/** A ratio and its rounds, for the log. */
const ratioText = (ratio: RatioSpread) =>
  `${round(ratio.median, 2)}x (rounds ${ratio.rounds.map((r) => round(r, 2)).join(', ')})`

/** Accounts the write case spreads its creates over: 100,000 agents of room, more than any run makes. */
const WRITE_ACCOUNTS = 100

async function measureLoad(settings: LoadSettings, mockEntry: string[]): Promise<LoadRow[]> {
  log('Starting the mock, prism mock and the bare server...')
  const keysFile = removeOnExit(join(RESULTS_DIR, 'bench-keys.json'))
  const [mock, prism, bare] = await Promise.all([
    startMockServer(mockEntry, keysFile),
    startPrismServer(),
    startBareServer(),
  ])
  rmSync(keysFile, { force: true })
  const rows: LoadRow[] = []
  try {
    for (const loadCase of LOAD_CASES) {
      const headers = caseHeaders(loadCase, mock.secretKey)
      const init = { method: loadCase.method, headers, body: loadCase.body }
      // The ceiling answers exactly the bytes the mock answers to the same request.
      const captured = await captureResponse(mock.origin + loadCase.path, init)
      await bare.replay(`${loadCase.method} ${loadCase.path}`, captured)
      const row: LoadRow = {
        case: loadCase.id,
        label: loadCase.label,
        servers: {},
        ratios: { mockOverPrism: ratioSpread([], []), mockOverBare: ratioSpread([], []) },
        note:
          loadCase.method === 'POST'
            ? 'Prism answers its static example; the mock validates and stores a new agent each time'
            : undefined,
      }
      const servers: BenchServer[] = [mock, prism, bare]
      log(
        `  ${loadCase.label}: ${settings.warmupSec} s warm-up each, then ${settings.rounds} rounds of ${round(settings.durationSec / settings.rounds, 2)} s (mock, prism, bare in rotating order)...`,
      )
      // Creates take turns over fresh accounts (each holds at most 1,000 agents); reads use the demo account.
      const rotateKeys =
        loadCase.method === 'POST' ? await provisionWriteKeys(mock.controlUrl, WRITE_ACCOUNTS) : undefined
      const figures = await runLoad(
        servers.map((server) => ({
          name: server.name,
          request: {
            ...init,
            url: server.origin + server.pathFor(loadCase.path),
            rotateKeys: server === mock ? rotateKeys : undefined,
          },
          pid: server.child.pid,
        })),
        settings,
      )
      for (const server of servers) {
        const result = figures[server.name] as LoadFigures
        row.servers[server.name] = result
        const codes = Object.entries(result.statusCodes)
          .map(([code, count]) => `${code}x${count}`)
          .join(' ')
        log(
          `    ${server.name}: ${result.requestsPerSec} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, CPU ${result.cpuUsPerRequest} µs/req, RSS ${result.rssMb} MB [${codes}${result.errors ? `, ${result.errors} errors` : ''}]`,
        )
      }
      // Each round ran the three servers in turn: its own ratios, of which the run says the median.
      const rates = (name: 'mock' | 'prism' | 'bare') => row.servers[name]?.roundRates ?? []
      row.ratios = {
        mockOverPrism: ratioSpread(rates('mock'), rates('prism')),
        mockOverBare: ratioSpread(rates('mock'), rates('bare')),
      }
      const { mockOverPrism, mockOverBare } = row.ratios
      log(`    mock/Prism ${ratioText(mockOverPrism)}, mock/bare ${ratioText(mockOverBare)}`)
      rows.push(row)
    }
  } finally {
    await Promise.all([mock.child.stop(), prism.child.stop(), bare.child.stop()])
  }
  return rows
}

/** Runs the bench; false when `--compare` found a ratio that fell by more than 10%. */
async function main(flags: BenchFlags, argv: string[]): Promise<boolean> {
  installCleanup()
  // Read first: a comparison without committed figures fails before the run, not after it.
  const committed = flags.compare ? readCommittedFigures() : undefined
  mkdirSync(RESULTS_DIR, { recursive: true })
  const started = performance.now()
  // The load runs the built CLI (what the bin runs where dist/ exists), else the sources through tsx.
  let built: BuiltEntry = { skipped: 'not needed' }
  if (flags.phases.has('load') || flags.phases.has('startup') || flags.phases.has('storage')) {
    log('Finding the built CLI (dist/, else a tsc build to bench-results/build)...')
    built = await builtMockEntry()
  }
  const mockEntry = 'entry' in built ? built.entry : MOCK_TSX_ENTRY
  const settings: LoadSettings = {
    connections: flags.connections,
    durationSec: flags.durationSec,
    warmupSec: flags.warmupSec,
    rounds: flags.rounds,
  }
  const cpu = cpus()
  const partial: Omit<BenchResults, 'targets'> = {
    date: new Date().toISOString(),
    command: `npm run bench${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`,
    machine: {
      node: process.versions.node,
      cpus: cpu.length,
      cpuModel: cpu[0]?.model.trim() ?? 'unknown',
      platform: `${process.platform}-${process.arch}`,
      loadAverage: [loadavg()[0] ?? 0],
    },
    settings: {
      ...settings,
      quick: flags.quick,
      mockEntry: 'entry' in built ? `built JS (${built.note})` : 'node --import tsx cli/main.ts',
    },
    load: [],
    startup: [],
  }

  if (flags.phases.has('load')) partial.load = await measureLoad(settings, mockEntry)
  if (flags.phases.has('startup')) {
    log(`Start-up: process start to first 200 (${flags.startupRuns} cold start(s) each)...`)
    partial.startup = await measureStartup(flags.startupRuns, built, log)
  }
  if (flags.phases.has('list')) {
    log(`List latency: seeding ${flags.callLogs} call logs, ${flags.listIterations} pages per kind...`)
    partial.list = await measureListLatency(flags.callLogs, flags.listIterations)
    log(
      `  RSS ${partial.list.rssMb} MB; worst p99 in-process ${Math.max(...partial.list.kinds.map((k) => k.inProcess.p99))} ms`,
    )
  }
  if (flags.phases.has('msw')) {
    log(
      `MSW setupServer: the mock and a trivial handler, sequential fetch, ${flags.mswRounds} alternating rounds, ${flags.mswSec} s each side...`,
    )
    partial.msw = await measureMsw({
      durationSec: flags.mswSec,
      rounds: flags.mswRounds,
      warmupSec: settings.warmupSec,
    })
    const { mock, trivial, costRatio, wallRatio } = partial.msw
    log(
      `  mock ${mock.requestsPerSec} req/s (${mock.cpuUsPerRequest} µs CPU), trivial ${trivial.requestsPerSec} req/s (${trivial.cpuUsPerRequest} µs CPU); per request mock/trivial: CPU ${ratioText(costRatio)}, wall ${ratioText(wallRatio)}`,
    )
  }
  if (flags.phases.has('contract')) {
    log('Contract suite against a local mock...')
    partial.contract = await measureContractSuite()
    log(`  ${partial.contract.status}: ${partial.contract.note}`)
  }

  if (flags.phases.has('storage')) {
    log(
      `Storage: the file store at ${flags.storageSizes.join(' and ')} call logs, then mocks on one Redis...`,
    )
    partial.storage = await measureStorage(
      mockEntry,
      {
        callLogSizes: flags.storageSizes,
        writes: flags.storageWrites,
        reads: flags.storageReads,
        connections: flags.connections,
        durationSec: flags.durationSec,
      },
      log,
    )
  }

  partial.machine.loadAverage.push(loadavg()[0] ?? 0)
  const results: BenchResults = { ...partial, targets: checkTargets(partial) }
  if (committed) results.comparison = compareRatios(committed, ratiosOf(results))
  const markdown = formatMarkdown(results)
  log(`\nDone in ${round((performance.now() - started) / 1000, 0)} s.\n`)
  log(markdown)
  if (flags.json) {
    const file = resolve(flags.json)
    mkdirSync(dirname(file), { recursive: true })
    const json = `${JSON.stringify(results, null, 2)}\n`
    writeFileSync(file, json)
    writeFileSync(join(RESULTS_DIR, 'latest.json'), json)
    writeFileSync(join(RESULTS_DIR, 'latest.md'), markdown)
    log(
      `Wrote ${[...new Set([file, join(RESULTS_DIR, 'latest.json')])].join(', ')} and ${join(RESULTS_DIR, 'latest.md')}.`,
    )
  }
  if (flags.save) {
    writeFileSync(FIGURES_FILE, `${JSON.stringify(figuresOf(results), null, 2)}\n`)
    // As the repository's formatter writes JSON, so that the file is committed as it is.
    spawnSync(join(ROOT, 'node_modules', '.bin', 'biome'), ['format', '--write', FIGURES_FILE], {
      stdio: 'ignore',
    })
    log(`Wrote this run's ratios to ${FIGURES_FILE} (commit it: --compare compares with it).`)
  }
  if (results.comparison) {
    const fell = results.comparison.rows.filter((row) => row.fell)
    for (const row of fell)
      log(
        `FELL: ${row.ratio}: ${row.committed} -> ${row.now} (${round(row.change * 100, 1)}% against the figures of ${results.comparison.against.date})`,
      )
    if (fell.length === 0)
      log(`No ratio fell by more than 10% against the figures of ${results.comparison.against.date}.`)
    return fell.length === 0
  }
  return true
}

const argv = process.argv.slice(2)
let flags: BenchFlags | 'help'
try {
  flags = parseBenchFlags(argv)
} catch (error) {
  console.error(`bench: ${(error as Error).message}\n\n${BENCH_HELP}`)
  process.exit(2)
}
if (flags === 'help') console.log(BENCH_HELP)
else
  await main(flags, argv).then(
    (passed) => process.exit(passed ? 0 : 1),
    (error: unknown) => {
      console.error('bench: failed:', error)
      process.exit(1)
    },
  )

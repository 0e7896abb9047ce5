import { parseArgs } from 'node:util'

export const PHASES = ['load', 'startup', 'list', 'msw', 'contract', 'storage'] as const
export type Phase = (typeof PHASES)[number]

/** Options of `npm run bench`. */
export interface BenchFlags {
  quick: boolean
  /** Write the figures here (and `bench-results/latest.{json,md}`). */
  json?: string
  /** Compare the ratios with the committed figures (`docs/performance-figures.json`), naming any that fell. */
  compare: boolean
  /** Write this run's ratios to `docs/performance-figures.json` (to commit, from a quiet machine). */
  save: boolean
  connections: number
  durationSec: number
  warmupSec: number
  /** Turns each server takes per case (the measured seconds are split over them). */
  rounds: number
  /** Cold starts per startup measurement. */
  startupRuns: number
  /** Call logs seeded for the list bench. */
  callLogs: number
  /** Timed pages per kind in the list bench. */
  listIterations: number
  mswSec: number
  /** Rounds of the MSW comparison (mock and trivial handler in alternating order). */
  mswRounds: number
  /** Call logs seeded for the storage bench, one run per size. */
  storageSizes: number[]
  /** Timed writes and reads per storage run. */
  storageWrites: number
  storageReads: number
  phases: ReadonlySet<Phase>
}

export const BENCH_HELP = `Usage: npm run bench -- [options]

Benchmarks the mock against prism mock and a bare node:http server (the ceiling), side by side.

Options:
  --quick              shorter runs (2 s per case and server, 1 cold start each, 500 pages per kind)
  --compare            compare the ratios with the committed ones (docs/performance-figures.json) and
                       name each that fell by more than 10% (exit code 1 then); runs the load and msw
                       phases unless --only says otherwise
  --save               write this run's ratios to docs/performance-figures.json (commit it from a quiet
                       machine: it is what --compare compares with)
  --json <file>        write the figures as JSON, and bench-results/latest.json and latest.md
  --connections <n>    autocannon connections (default 10)
  --duration <s>       measured seconds per case and server (default 5, in 5 rotating rounds, each giving
                       its own ratios; 1 s warm-up)
  --only <phases>      comma-separated subset of: ${PHASES.join(', ')}
  -h, --help           show this help`

function positive(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback
  const value = Number(text)
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`--${name} must be a positive number, got '${text}'.`)
  return value
}

/** Parses the bench's flags; 'help' for -h. */
export function parseBenchFlags(argv: string[]): BenchFlags | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      quick: { type: 'boolean' },
      compare: { type: 'boolean' },
      save: { type: 'boolean' },
      json: { type: 'string' },
      connections: { type: 'string' },
      duration: { type: 'string' },
      only: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) return 'help'
  const quick = values.quick === true
  const only = values.only?.split(',').map((phase) => phase.trim())
  for (const phase of only ?? [])
    if (!(PHASES as readonly string[]).includes(phase))
      throw new Error(`Unknown phase '${phase}' in --only (phases: ${PHASES.join(', ')}).`)
  const compare = values.compare === true
  // A comparison needs only the phases whose ratios it compares.
  const phases = only ?? (compare ? ['load', 'msw'] : PHASES)
  return {
    quick,
    json: values.json,
    compare,
    save: values.save === true,
    connections: Math.round(positive('connections', values.connections, 10)),
    durationSec: positive('duration', values.duration, quick ? 2 : 5),
    warmupSec: quick ? 0.5 : 1,
    rounds: 5,
    startupRuns: quick ? 1 : 3,
    callLogs: 100_000,
    listIterations: quick ? 500 : 2_000,
    mswSec: quick ? 4 : 10,
    mswRounds: quick ? 8 : 20,
    storageSizes: quick ? [1_000, 20_000] : [1_000, 100_000],
    storageWrites: quick ? 200 : 1_000,
    storageReads: quick ? 500 : 2_000,
    phases: new Set(phases as Phase[]),
  }
}

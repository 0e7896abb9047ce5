import type { LoadCase } from './cases.ts'
import type { ContractSuiteFigures } from './contract-suite.ts'
import type { ListFigures } from './list-latency.ts'
import type { LoadFigures, LoadSettings } from './load.ts'
import type { MswFigures } from './msw-throughput.ts'
import type { RatioSpread } from './ratios.ts'
import type { StartupFigures } from './startup.ts'
import type { StorageFigures } from './storage.ts'

export type ServerName = 'mock' | 'prism' | 'bare'

/** One load case across the three servers. */
export interface LoadRow {
  case: LoadCase['id']
  label: string
  servers: Partial<Record<ServerName, LoadFigures>>
  /** mock requests/s over Prism's and over the bare server's, round by round. */
  ratios: { mockOverPrism: RatioSpread; mockOverBare: RatioSpread }
  note?: string
}

export type { MswFigures }

/** One target of the issue, checked against this run. */
export interface TargetCheck {
  target: string
  measured: string
  met: boolean | null
}

/** Everything one `npm run bench` measured. */
export interface BenchResults {
  date: string
  command: string
  /** `loadAverage`: the 1-minute load average at the start and at the end of the run. */
  machine: { node: string; cpus: number; cpuModel: string; platform: string; loadAverage: number[] }
  settings: LoadSettings & { quick: boolean; mockEntry: string }
  load: LoadRow[]
  startup: StartupFigures[]
  list?: ListFigures
  msw?: MswFigures
  contract?: ContractSuiteFigures
  storage?: StorageFigures
  targets: TargetCheck[]
  /** Ratios that fell by more than 10% against the committed figures (`--compare`). */
  comparison?: Comparison
}

/** This run's ratios against the figures committed last (`docs/performance-figures.json`). */
export interface Comparison {
  /** The committed figures' date and load. */
  against: { date: string; loadAverage: number[] }
  rows: { ratio: string; committed: number; now: number; change: number; fell: boolean }[]
}

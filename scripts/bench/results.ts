import type { LoadCase } from './cases.ts'
import type { ContractSuiteFigures } from './contract-suite.ts'
import type { ListFigures } from './list-latency.ts'
import type { LoadFigures, LoadSettings } from './load.ts'
import type { StartupFigures } from './startup.ts'
import type { StorageFigures } from './storage.ts'

export type ServerName = 'mock' | 'prism' | 'bare'

/** One load case across the three servers. */
export interface LoadRow {
  case: LoadCase['id']
  label: string
  servers: Partial<Record<ServerName, LoadFigures>>
  /** mock requests/s over Prism's and over the bare server's. */
  ratios: { mockOverPrism: number; mockOverBare: number }
  note?: string
}

/** Requests/s of the mock through MSW's `setupServer`. */
export interface MswFigures {
  requestsPerSec: number
  p50Ms: number
  p99Ms: number
  requests: number
}

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
}

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './paths.ts'
import type { BenchResults, Comparison } from './results.ts'
import { round } from './stats.ts'

/** The figures committed last: the ratios of a run on a quiet machine (`npm run bench -- --save`). */
export const FIGURES_FILE = join(ROOT, 'docs', 'performance-figures.json')

/** A fall of more than this much (a tenth) is named. */
const TOLERANCE = 0.1

/** One ratio of a run, and which way is better. */
export interface Ratio {
  value: number
  better: 'higher' | 'lower'
}

/** What `docs/performance-figures.json` holds. */
export interface CommittedFigures {
  date: string
  command: string
  machine: { node: string; cpus: number; cpuModel: string; loadAverage: number[] }
  ratios: Record<string, Ratio>
}

/** The ratios of a run, by name (each the median of its rounds). */
export function ratiosOf(results: Pick<BenchResults, 'load' | 'msw'>): Record<string, Ratio> {
  const ratios: Record<string, Ratio> = {}
  for (const row of results.load) {
    const { mockOverPrism, mockOverBare } = row.ratios
    ratios[`${row.label}: mock / Prism`] = { value: round(mockOverPrism.median, 3), better: 'higher' }
    ratios[`${row.label}: mock / bare node:http`] = { value: round(mockOverBare.median, 3), better: 'higher' }
  }
  if (results.msw)
    ratios['MSW GET /v1/agents: CPU time per request, mock / trivial handler'] = {
      value: round(results.msw.costRatio.median, 3),
      better: 'lower',
    }
  return ratios
}

/** The figures to commit from a run. */
export function figuresOf(results: BenchResults): CommittedFigures {
  const { node, cpus, cpuModel, loadAverage } = results.machine
  return {
    date: results.date,
    command: results.command,
    machine: { node, cpus, cpuModel, loadAverage },
    ratios: ratiosOf(results),
  }
}

/** Reads the committed figures; a missing or unreadable file is an error saying what to do. */
export function readCommittedFigures(file = FIGURES_FILE): CommittedFigures {
  if (!existsSync(file))
    throw new Error(
      `No committed figures at ${file}: run 'npm run bench -- --save' on a quiet machine first.`,
    )
  try {
    const figures = JSON.parse(readFileSync(file, 'utf8')) as CommittedFigures
    if (typeof figures.ratios !== 'object' || figures.ratios === null) throw new Error('no ratios')
    return figures
  } catch (error) {
    throw new Error(
      `${file} is not a figures file (${(error as Error).message}): run 'npm run bench -- --save'.`,
    )
  }
}

/**
 * This run's ratios against the committed ones: each ratio both have, its change, and whether it fell by more
 * than a tenth (a ratio where lower is better falls when it rises). Ratios measured in only one are left out.
 */
export function compareRatios(committed: CommittedFigures, now: Record<string, Ratio>): Comparison {
  const rows: Comparison['rows'] = []
  for (const [name, before] of Object.entries(committed.ratios)) {
    const current = now[name]
    if (!current || !Number.isFinite(current.value) || !Number.isFinite(before.value)) continue
    const change = current.value / before.value - 1
    const fell = before.better === 'higher' ? change < -TOLERANCE : change > TOLERANCE
    rows.push({ ratio: name, committed: before.value, now: current.value, change, fell })
  }
  return { against: { date: committed.date, loadAverage: committed.machine.loadAverage }, rows }
}

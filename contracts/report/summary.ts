import { type Coverage, coverageFigure } from '../runner/coverage.ts'
import type { RunStats } from '../runner/session.ts'
import { type AreaTitles, areasIn, SUITE_AREA_TITLES } from './area-titles.ts'
import type { ReportEntry } from './entries.ts'

const STATUSES = ['passed', 'failed', 'skipped', 'not-applicable'] as const
const LABEL: Record<(typeof STATUSES)[number], string> = {
  passed: 'passed',
  failed: 'failed',
  skipped: 'skipped',
  'not-applicable': 'not applicable',
}

/** What a run cost and covered, for the lines under the totals. */
export interface RunFigures {
  stats?: RunStats
  coverage?: Coverage
}

/** `Requests: ...`, `Waiting: ...` and `Coverage: ...` lines. */
export function figureLines(figures: RunFigures): string[] {
  const lines: string[] = []
  const { stats, coverage } = figures
  if (stats) {
    const shared =
      stats.cacheHits > 0
        ? `; ${stats.cacheHits} more answered from the run's cache (the same request, sent by an earlier check)`
        : ''
    lines.push(
      `Requests: ${stats.requests} sent to the API (${stats.counted} counted by its rate limit; 401 and 429 answers are not)${shared}`,
    )
    lines.push(
      stats.waits === 0
        ? 'Waiting: none'
        : `Waiting: ${(stats.waitedMs / 1000).toFixed(1)} s in ${stats.waits} wait(s) for the account's rate limit, Retry-After or time to pass`,
    )
  }
  if (coverage) lines.push(`Coverage: ${coverageFigure(coverage)} exercised`)
  return lines
}

/**
 * A readable summary: one line per area with its counts, the totals with what the run cost (requests,
 * waiting) and covered, then every failure in full (expected, actual, request, response, curl), then every
 * skipped check with its reason. `titles` names the areas, in report order (the suite's by default).
 */
export function formatSummary(
  entries: readonly ReportEntry[],
  header: string,
  durationMs: number,
  figures: RunFigures = {},
  titles: AreaTitles = SUITE_AREA_TITLES,
): string {
  const lines = [header, '']
  const areaTitle = (area: string) => titles[area] ?? area
  const areas = areasIn(titles, entries)
  const width = Math.max(0, ...areas.map((a) => areaTitle(a).length))
  for (const area of areas) {
    const mine = entries.filter((e) => e.area === area)
    const counts = STATUSES.map((s) => [s, mine.filter((e) => e.status === s).length] as const)
      .filter(([, n]) => n > 0)
      .map(([s, n]) => `${n} ${LABEL[s]}`)
    const mark = mine.some((e) => e.status === 'failed') ? 'x' : 'ok'
    lines.push(`  ${mark.padEnd(2)} ${areaTitle(area).padEnd(width)}  ${counts.join(', ')}`)
  }
  const total = STATUSES.map((s) => `${entries.filter((e) => e.status === s).length} ${LABEL[s]}`).join(', ')
  // One count of requests: the run's own (checks, probes, retries, teardown) on the line below when it is
  // known, else what the checks sent.
  const requests = entries.reduce((sum, e) => sum + e.requests, 0)
  const sent = figures.stats ? '' : ` (${requests} requests sent by the checks)`
  lines.push('', `Total: ${total}${sent} in ${(durationMs / 1000).toFixed(1)} s`)
  lines.push(...figureLines(figures))
  const failures = entries.filter((e) => e.status === 'failed')
  if (failures.length > 0) {
    lines.push('', 'Failures')
    failures.forEach((e, i) => {
      lines.push('', `${i + 1}) ${areaTitle(e.area)} > ${e.group} > ${e.title}`)
      lines.push(...(e.failure ?? '').split('\n').map((l) => `   ${l}`))
    })
  }
  const skipped = entries.filter((e) => e.status === 'skipped' || e.status === 'not-applicable')
  if (skipped.length > 0) {
    lines.push('', 'Skipped')
    const byReason = new Map<string, ReportEntry[]>()
    for (const e of skipped) byReason.set(e.reason ?? '', [...(byReason.get(e.reason ?? '') ?? []), e])
    for (const [reason, list] of byReason) {
      lines.push(`  - ${reason || '(no reason)'} (${list.length}):`)
      for (const e of list.slice(0, 8)) lines.push(`      ${areaTitle(e.area)} > ${e.group} > ${e.title}`)
      if (list.length > 8) lines.push(`      ... and ${list.length - 8} more`)
    }
  }
  return lines.join('\n')
}

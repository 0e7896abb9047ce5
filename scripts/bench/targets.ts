import type { RatioSpread } from './ratios.ts'
import type { BenchResults, TargetCheck } from './results.ts'
import { round } from './stats.ts'

const fmt = (value: number, digits = 2) => (Number.isFinite(value) ? String(round(value, digits)) : 'n/a')

/** The targets of GET /v1/agents and GET /v1/user: ratios within one run, the median of its rounds. */
const READ_TARGETS: Record<string, { overPrism?: number; overBare: number }> = {
  'list-agents': { overPrism: 12, overBare: 0.8 },
  'get-user': { overBare: 0.6 },
}
/** p99 at the bench's connections: reads under 2 ms; a write (validated and stored) under 5 ms. */
const P99_MS: Record<string, number> = { 'list-agents': 2, 'get-user': 2, 'create-agent': 5 }
/** The mock through MSW costs at most this much per request of a trivial MSW handler. */
const MSW_COST_RATIO = 1.25

const spread = (ratio: RatioSpread) => `${fmt(ratio.median)}x (rounds ${fmt(ratio.min)}-${fmt(ratio.max)})`

/** Checks this run's figures against the issue's targets (ratios within the one run). */
export function checkTargets(results: Omit<BenchResults, 'targets'>): TargetCheck[] {
  const checks: TargetCheck[] = []
  for (const row of results.load) {
    const targets = READ_TARGETS[row.case]
    if (!targets) continue
    const { mockOverPrism, mockOverBare } = row.ratios
    if (targets.overPrism !== undefined)
      checks.push({
        target: `${row.label}: mock >= ${targets.overPrism}x Prism requests/s`,
        measured: spread(mockOverPrism),
        met: Number.isFinite(mockOverPrism.median) ? mockOverPrism.median >= targets.overPrism : null,
      })
    checks.push({
      target: `${row.label}: mock >= ${targets.overBare}x bare node:http requests/s (same bytes)`,
      measured: spread(mockOverBare),
      met: Number.isFinite(mockOverBare.median) ? mockOverBare.median >= targets.overBare : null,
    })
  }
  for (const row of results.load) {
    const mock = row.servers.mock
    if (!mock) continue
    const p99 = P99_MS[row.case] ?? 5
    checks.push({
      target: `${row.label}: mock p99 < ${p99} ms at ${results.settings.connections} connections`,
      measured: `${fmt(mock.p99Ms)} ms`,
      met: mock.p99Ms < p99,
    })
    // A figure of answers that did no work (a 409 at a cap, a 429) would flatter the mock: none may be there.
    const refused = Object.entries(mock.statusCodes).filter(([code]) => !code.startsWith('2'))
    checks.push({
      target: `${row.label}: every answer of the mock is a 2xx, without errors`,
      measured:
        refused.length === 0 && mock.errors === 0
          ? `${mock.responses} of ${mock.responses}`
          : `${refused.map(([code, count]) => `${count}x ${code}`).join(', ') || 'no other status'}, ${mock.errors} errors`,
      met: refused.length === 0 && mock.errors === 0,
    })
  }
  if (results.msw) {
    const { costRatio } = results.msw
    checks.push({
      target: `MSW GET /v1/agents: the mock's CPU time per request <= ${MSW_COST_RATIO}x a trivial handler's (same bytes)`,
      measured: spread(costRatio),
      met: Number.isFinite(costRatio.median) ? costRatio.median <= MSW_COST_RATIO : null,
    })
  }
  for (const startup of results.startup.filter((s) => s.label.startsWith('mock'))) {
    checks.push({
      target: `first 200 within 300 ms of process start, ${startup.label}`,
      measured: Number.isFinite(startup.medianMs) ? `${fmt(startup.medianMs, 0)} ms (median)` : 'skipped',
      met: Number.isFinite(startup.medianMs) ? startup.medianMs <= 300 : null,
    })
  }
  if (results.list) {
    const { list } = results
    for (const limit of list.pageLimits) {
      const kinds = list.kinds.filter((k) => k.kind.endsWith(`limit ${limit}`))
      const where = {
        inProcess: 'in-process (platform.handle)',
        httpServerSide: 'over HTTP, server-side',
        http: 'over HTTP, at the client (1 connection)',
      }
      for (const via of ['inProcess', 'httpServerSide', 'http'] as const) {
        const worst = Math.max(...kinds.map((k) => k[via].p99))
        checks.push({
          target: `${list.callLogs} call logs, pages of ${limit}: any page p99 < 2 ms, ${where[via]}`,
          measured: `worst p99 ${fmt(worst, 3)} ms`,
          met: worst < 2,
        })
      }
    }
    checks.push({
      target: `${list.callLogs} call logs: RSS < 250 MB`,
      measured: `${fmt(list.rssMb, 0)} MB`,
      met: list.rssMb < 250,
    })
  }
  for (const figures of results.storage?.embedded.filter((e) => e.store === 'file') ?? []) {
    checks.push({
      target: `file store, ${figures.callLogs} call logs: a durable write's p99 <= 5 ms`,
      measured: `${fmt(figures.write.p99, 2)} ms (p50 ${fmt(figures.write.p50, 2)} ms)`,
      met: figures.write.p99 <= 5,
    })
    const memory = results.storage?.embedded.find(
      (e) => e.store === 'memory' && e.callLogs === figures.callLogs,
    )
    // "Unchanged": within 1 ms or 50% of the read p99 without writes, whichever is larger.
    const allowed = Math.max(figures.readAlone.p99 + 1, figures.readAlone.p99 * 1.5)
    checks.push({
      target: `file store, ${figures.callLogs} call logs: read p99 unchanged by concurrent writes`,
      measured: `${fmt(figures.readWithWrites.p99, 3)} ms with writes, ${fmt(figures.readAlone.p99, 3)} ms alone${memory ? `, ${fmt(memory.readAlone.p99, 3)} ms in memory` : ''}`,
      met: figures.readWithWrites.p99 <= allowed,
    })
  }
  return checks
}

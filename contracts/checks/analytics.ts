import type { Exchange } from '../http/exchange.ts'
import { allLogs } from './call-logs.ts'
import { ensure, expectError, expectStatus, jsonObject } from './failure.ts'
import { instant, sameInstant } from './formats.ts'
import type { ContractCheck } from './types.ts'

type Log = Record<string, unknown>
type Metrics = Record<string, unknown> & { sentiment: Record<string, number> }

const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

/** The metrics the contract defines, computed from listed call logs (the reference for the totals). */
export function metricsOf(logs: readonly Log[]): Record<string, unknown> {
  const completed = logs.filter((l) => l.status === 'completed')
  const analyzed = logs.filter((l) => l.analysis && typeof l.analysis === 'object')
  const analysis = (l: Log) => l.analysis as { successful: boolean; sentiment: string }
  const duration = completed.reduce((sum, l) => sum + Number(l.duration_seconds ?? 0), 0)
  const costUnits = completed.reduce((sum, l) => sum + Math.round(Number(l.cost_usd ?? 0) * 10_000), 0)
  const successful = analyzed.filter((l) => analysis(l).successful).length
  const count = (s: string) => analyzed.filter((l) => analysis(l).sentiment === s).length
  return {
    call_count: logs.length,
    completed_count: completed.length,
    analyzed_count: analyzed.length,
    successful_count: successful,
    total_duration_seconds: duration,
    avg_duration_seconds: completed.length ? round(duration / completed.length, 2) : null,
    total_cost_usd: costUnits / 10_000,
    avg_cost_usd: completed.length ? round(costUnits / 10_000 / completed.length, 4) : null,
    success_rate: analyzed.length ? round(successful / analyzed.length, 4) : null,
    sentiment: { positive: count('positive'), neutral: count('neutral'), negative: count('negative') },
  }
}

const ADDITIVE = [
  'call_count',
  'completed_count',
  'analyzed_count',
  'successful_count',
  'total_duration_seconds',
  'total_cost_usd',
]

function expectSums(parts: readonly Metrics[], totals: Metrics, what: string, exchange: Exchange): void {
  for (const field of ADDITIVE) {
    const sum = round(
      parts.reduce((s, m) => s + Number(m[field]), 0),
      4,
    )
    ensure(
      sum === totals[field],
      `${what}: ${field} adding up to totals (${String(totals[field])})`,
      String(sum),
      exchange,
    )
  }
  for (const s of ['positive', 'neutral', 'negative']) {
    const sum = parts.reduce((acc, m) => acc + Number(m.sentiment[s]), 0)
    ensure(sum === totals.sentiment[s], `${what}: sentiment.${s} adding up to totals`, String(sum), exchange)
  }
}

/** A range that holds the call logs (at most 700 days back from the newest, within the 744-bucket limit). */
function rangeOf(logs: readonly Log[]) {
  const created = logs.map((l) => instant(l.created_at)).sort((a, b) => a - b)
  const end = (created.at(-1) ?? 0) + 1000
  const start = Math.max(created[0] ?? 0, end - 700 * 86_400_000)
  const inRange = logs.filter((l) => {
    const t = instant(l.created_at)
    return t >= start && t < end
  })
  return { start, end, inRange }
}

const group = 'Analytics'

/** Analytics: totals equal to the listed call logs, series and groups adding up, bad ranges. */
export const analyticsChecks: ContractCheck[] = [
  {
    id: 'resources/analytics/totals',
    area: 'resources',
    group,
    title: 'reports totals equal to the metrics of the listed call logs, with series and groups adding up',
    needs: ['call-logs'],
    async run(ctx) {
      const logs = await allLogs(ctx)
      const range = rangeOf(logs)
      const query = `start=${iso(range.start)}&end=${iso(range.end)}`
      const total = await ctx.call({
        method: 'GET',
        path: `/analytics/calls?${query}&granularity=total&group_by=agent_id`,
        key: ctx.keys.callLogs,
        operationId: 'getCallAnalytics',
      })
      expectStatus(total, 200)
      const body = jsonObject(total) as {
        totals: Metrics
        series: { metrics: Metrics }[]
        groups: { value: string; totals: Metrics }[]
      }
      const want = metricsOf(range.inRange)
      for (const [field, value] of Object.entries(want))
        ensure(
          JSON.stringify(body.totals[field]) === JSON.stringify(value),
          `totals.${field} = ${JSON.stringify(value)} (from the listed call logs)`,
          JSON.stringify(body.totals[field]),
          total,
        )
      expectSums(
        body.series.map((b) => b.metrics),
        body.totals,
        'series',
        total,
      )
      expectSums(
        body.groups.map((g) => g.totals),
        body.totals,
        'groups',
        total,
      )
      for (const g of body.groups) {
        const mine = metricsOf(range.inRange.filter((l) => l.agent_id === g.value))
        ensure(
          g.totals.call_count === mine.call_count,
          `group ${g.value}: call_count ${String(mine.call_count)}`,
          String(g.totals.call_count),
          total,
        )
      }
      const daily = await ctx.call({
        method: 'GET',
        path: `/analytics/calls?${query}&granularity=week`,
        key: ctx.keys.callLogs,
        operationId: 'getCallAnalytics',
      })
      expectStatus(daily, 200)
      const weekly = jsonObject(daily) as {
        totals: Metrics
        series: { start: string; end: string; metrics: Metrics }[]
      }
      expectSums(
        weekly.series.map((b) => b.metrics),
        weekly.totals,
        'weekly series',
        daily,
      )
      ensure(
        sameInstant(weekly.series[0]?.start, iso(range.start)) &&
          sameInstant(weekly.series.at(-1)?.end, iso(range.end)),
        'buckets tiling [start, end)',
        `${weekly.series[0]?.start} - ${weekly.series.at(-1)?.end}`,
        daily,
      )
      for (let i = 1; i < weekly.series.length; i++)
        ensure(
          sameInstant(weekly.series[i]?.start, weekly.series[i - 1]?.end),
          'contiguous buckets',
          `${weekly.series[i - 1]?.end} then ${weekly.series[i]?.start}`,
          daily,
        )
      const agent = body.groups[0]?.value
      if (agent) {
        const one = await ctx.call({
          method: 'GET',
          path: `/analytics/calls?${query}&granularity=total&agent_id=${agent}`,
          key: ctx.keys.callLogs,
          operationId: 'getCallAnalytics',
        })
        const mine = metricsOf(range.inRange.filter((l) => l.agent_id === agent))
        ensure(
          (jsonObject(one).totals as Metrics).call_count === mine.call_count,
          `agent_id=${agent}: call_count ${String(mine.call_count)}`,
          String((jsonObject(one).totals as Metrics).call_count),
          one,
        )
      }
    },
  },
  {
    id: 'resources/analytics/bad-ranges',
    area: 'resources',
    group,
    title:
      'answers 400 invalid_parameter for a reversed range, a future start, an unknown time zone or granularity',
    needs: ['call-logs'],
    async run(ctx) {
      const cases: [string, string][] = [
        ['start=2026-03-09T00:00:00Z&end=2026-03-01T00:00:00Z', 'end'],
        ['start=2999-01-01T00:00:00Z', 'start'],
        ['timezone=Mars/Olympus_Mons', 'timezone'],
        ['granularity=not_a_valid_value', 'granularity'],
        ['start=2020-01-01T00:00:00Z&end=2026-01-01T00:00:00Z&granularity=hour', 'start'],
      ]
      for (const [query, param] of cases) {
        const exchange = await ctx.call({
          method: 'GET',
          path: `/analytics/calls?${query}`,
          key: ctx.keys.callLogs,
          operationId: 'getCallAnalytics',
        })
        expectError(
          exchange,
          400,
          { type: 'invalid_request_error', code: 'invalid_parameter', param },
          `for ?${query}`,
        )
      }
    },
  },
]

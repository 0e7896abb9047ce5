import type { Exchange } from '../http/exchange.ts'
import { allLogs } from './call-logs.ts'
import { ensure, expectError, expectStatus, jsonObject } from './failure.ts'
import { instant, iso, sameInstant } from './formats.ts'
import type { ContractCheck } from './types.ts'

type Log = Record<string, unknown>
type Metrics = Record<string, unknown> & { sentiment: Record<string, number> }

const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals

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

/**
 * A range inside the call logs' span, on whole seconds: the oldest two and the newest call logs lie outside it,
 * so a target that counted calls outside the range is caught (at most 700 days, within the 744-bucket limit).
 */
function rangeOf(logs: readonly Log[]) {
  const created = logs.map((l) => instant(l.created_at)).sort((a, b) => a - b)
  const end = Math.floor((created.at(-1) ?? 0) / 1000) * 1000
  const start = Math.max(Math.floor((created[1] ?? 0) / 1000) * 1000 + 1000, end - 700 * 86_400_000)
  const inRange = logs.filter((l) => {
    const t = instant(l.created_at)
    return t >= start && t < end
  })
  return { start, end, inRange }
}

/** The wall-clock time of instants in a time zone (the reference for calendar-aligned buckets). */
function localTimes(timeZone: string) {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    weekday: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  })
  return (ms: number) => {
    const parts = format.formatToParts(ms)
    const part = (type: string) => Number(parts.find((p) => p.type === type)?.value)
    return {
      weekday: parts.find((p) => p.type === 'weekday')?.value,
      day: part('day'),
      midnight: part('hour') === 0 && part('minute') === 0 && part('second') === 0,
    }
  }
}

export type Bucket = { start: string; end: string; metrics: Metrics }

/**
 * Buckets that tile `[start, end)` (the first starting at `start`, each starting where the one before ended, the
 * last ending at `end`) with every inner bound where `aligned` says a bucket starts in the zone.
 */
export function expectCalendar(
  series: readonly Bucket[],
  range: { start: number; end: number },
  aligned: (at: number) => boolean,
  what: string,
  exchange: Exchange,
): void {
  ensure(
    series.length > 0 &&
      sameInstant(series[0]?.start, iso(range.start)) &&
      sameInstant(series.at(-1)?.end, iso(range.end)),
    `${what}: buckets tiling [${iso(range.start)}, ${iso(range.end)})`,
    `${series[0]?.start} - ${series.at(-1)?.end}`,
    exchange,
  )
  for (let i = 1; i < series.length; i++) {
    const bound = instant(series[i]?.start)
    ensure(
      sameInstant(series[i]?.start, series[i - 1]?.end),
      `${what}: contiguous buckets`,
      `${series[i - 1]?.end} then ${series[i]?.start}`,
      exchange,
    )
    ensure(aligned(bound), `${what}: every inner bound aligned`, String(series[i]?.start), exchange)
  }
}

/**
 * Each bucket's metrics, every one of them, equal to those of the listed call logs created in it: empty buckets
 * and buckets where nothing was analysed included (averages and `success_rate` `null` there, the contract's
 * description of getCallAnalytics).
 */
function expectBucketMetrics(
  series: readonly Bucket[],
  logs: readonly Log[],
  what: string,
  exchange: Exchange,
) {
  for (const bucket of series) {
    const [from, to] = [instant(bucket.start), instant(bucket.end)]
    const want = metricsOf(logs.filter((l) => instant(l.created_at) >= from && instant(l.created_at) < to))
    for (const [field, value] of Object.entries(want))
      ensure(
        JSON.stringify(bucket.metrics[field]) === JSON.stringify(value),
        `${what}: bucket ${bucket.start} - ${bucket.end}, ${field} = ${JSON.stringify(value)} (from the ${String(want.call_count)} listed call logs created in it${value === null ? '; null when nothing was completed or analysed' : ''})`,
        JSON.stringify(bucket.metrics[field]),
        exchange,
      )
  }
}

/** Each bucket's call_count equal to the listed call logs created in it. */
export function expectBucketCounts(
  series: readonly Bucket[],
  logs: readonly Log[],
  what: string,
  exchange: Exchange,
) {
  for (const bucket of series) {
    const [from, to] = [instant(bucket.start), instant(bucket.end)]
    const want = logs.filter((l) => instant(l.created_at) >= from && instant(l.created_at) < to).length
    ensure(
      bucket.metrics.call_count === want,
      `${what}: bucket ${bucket.start} - ${bucket.end} counting the ${want} listed call logs created in it`,
      String(bucket.metrics.call_count),
      exchange,
    )
  }
}

const NEW_YORK = 'America/New_York'
const newYorkTime = localTimes(NEW_YORK)
/** A zone at +05:45 all year (no daylight saving since 1986): its hours begin at a quarter past the UTC hour. */
const KATHMANDU = 'Asia/Kathmandu'
const HOUR_MS = 3_600_000

const group = 'Analytics'

/** Analytics: totals equal to the listed call logs, series and groups adding up, calendars, bad ranges. */
export const analyticsChecks: ContractCheck[] = [
  {
    id: 'resources/analytics/totals',
    area: 'resources',
    group,
    title:
      'reports totals, groups (ordered by call_count, then value), weekly buckets (every metric) and monthly buckets (aligned in the time zone) equal to the metrics of the listed call logs in the range, and none outside it',
    needs: ['call-logs'],
    async run(ctx) {
      const logs = await allLogs(ctx)
      const range = rangeOf(logs)
      const query = `start=${iso(range.start)}&end=${iso(range.end)}`
      const get = (extra: string) =>
        ctx.call({
          method: 'GET',
          path: `/analytics/calls?${query}&${extra}`,
          key: ctx.keys.callLogs,
          operationId: 'getCallAnalytics',
        })
      const total = await get('granularity=total&group_by=agent_id')
      expectStatus(total, 200)
      const body = jsonObject(total) as {
        totals: Metrics
        series: Bucket[]
        groups: { value: string; totals: Metrics }[]
      }
      const want = metricsOf(range.inRange)
      for (const [field, value] of Object.entries(want))
        ensure(
          JSON.stringify(body.totals[field]) === JSON.stringify(value),
          `totals.${field} = ${JSON.stringify(value)} (from the listed call logs created in the range)`,
          JSON.stringify(body.totals[field]),
          total,
        )
      ensure(
        body.series.length === 1,
        'granularity total: one bucket, equal to the range',
        `${body.series.length} buckets`,
        total,
      )
      expectCalendar(body.series, range, () => false, 'granularity total', total)
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
      const byAgent = new Map<string, number>()
      for (const log of range.inRange)
        byAgent.set(String(log.agent_id), (byAgent.get(String(log.agent_id)) ?? 0) + 1)
      const order = [...byAgent]
        .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
        .map(([value, count]) => `${value}:${count}`)
      const groups = body.groups.map((g) => `${g.value}:${String(g.totals.call_count)}`)
      ensure(
        groups.join(' ') === order.join(' '),
        `groups with their call_count, ordered by call_count descending, then value ascending: ${order.join(' ')}`,
        groups.join(' '),
        total,
      )

      // Grouped too: each group's totals over several weeks, as every analytics answer's invariants read them.
      const weekly = await get(`granularity=week&timezone=${NEW_YORK}&group_by=direction`)
      expectStatus(weekly, 200)
      const { totals: weekTotals, series: weeks } = jsonObject(weekly) as {
        totals: Metrics
        series: Bucket[]
      }
      expectSums(
        weeks.map((b) => b.metrics),
        weekTotals,
        'weekly series',
        weekly,
      )
      expectCalendar(
        weeks,
        range,
        (at) => {
          const local = newYorkTime(at)
          return local.weekday === 'Mon' && local.midnight
        },
        `weeks in ${NEW_YORK} (from Monday 00:00 local time)`,
        weekly,
      )
      expectBucketMetrics(weeks, range.inRange, 'weekly series', weekly)

      const agent = body.groups[0]?.value
      if (agent) {
        const one = await get(`granularity=month&timezone=${NEW_YORK}&agent_id=${agent}`)
        expectStatus(one, 200)
        const mine = range.inRange.filter((l) => l.agent_id === agent)
        const monthly = jsonObject(one) as { totals: Metrics; series: Bucket[] }
        ensure(
          monthly.totals.call_count === mine.length,
          `agent_id=${agent}: call_count ${mine.length}`,
          String(monthly.totals.call_count),
          one,
        )
        expectCalendar(
          monthly.series,
          range,
          (at) => {
            const local = newYorkTime(at)
            return local.day === 1 && local.midnight
          },
          `months in ${NEW_YORK} (from the 1st at 00:00 local time)`,
          one,
        )
        expectBucketCounts(monthly.series, mine, `agent_id=${agent}, monthly series`, one)
      }
    },
  },
  {
    id: 'resources/analytics/calendar',
    area: 'resources',
    group,
    title:
      'aligns hours to the time zone (a quarter past the UTC hour at +05:45) and allows exactly 744 buckets; by default, days in UTC over the last 7 days',
    needs: ['call-logs'],
    async run(ctx) {
      // 31 days of hours in Kathmandu from an instant between two of its hours: a first bucket clipped to 14 min 30 s,
      // 743 whole hours, the range ending where a local hour begins. 744 buckets, the most a range may need.
      const range = { start: Date.parse('2025-01-01T00:00:30Z'), end: Date.parse('2025-01-31T23:15:00Z') }
      const hourly = await ctx.call({
        method: 'GET',
        path: `/analytics/calls?start=${iso(range.start)}&end=${iso(range.end)}&granularity=hour&timezone=${KATHMANDU}`,
        key: ctx.keys.callLogs,
        operationId: 'getCallAnalytics',
      })
      expectStatus(hourly, 200, 'for 744 hourly buckets, the most a range may need')
      const hours = (jsonObject(hourly) as { series: Bucket[] }).series
      ensure(hours.length === 744, '744 buckets', String(hours.length), hourly)
      expectCalendar(
        hours,
        range,
        (at) => (at - 15 * 60_000) % HOUR_MS === 0,
        `hours in ${KATHMANDU} (beginning at a quarter past the UTC hour)`,
        hourly,
      )
      // Without granularity, timezone, start or end: days in UTC, from 7 days before now (the same request as
      // the response check of this operation).
      const defaults = await ctx.call({
        method: 'GET',
        path: '/analytics/calls',
        key: ctx.keys.callLogs,
        operationId: 'getCallAnalytics',
      })
      expectStatus(defaults, 200)
      const body = jsonObject(defaults) as {
        start: string
        end: string
        granularity: string
        timezone: string
        series: Bucket[]
      }
      ensure(
        body.granularity === 'day' && body.timezone === 'UTC',
        'granularity "day" and timezone "UTC" when neither is given',
        `${body.granularity}, ${body.timezone}`,
        defaults,
      )
      const [start, end] = [instant(body.start), instant(body.end)]
      ensure(
        end - start === 7 * 24 * HOUR_MS,
        'start 7 days before end by default',
        `${body.start} - ${body.end}`,
        defaults,
      )
      expectCalendar(body.series, { start, end }, (at) => at % (24 * HOUR_MS) === 0, 'days in UTC', defaults)
    },
  },
  {
    id: 'resources/analytics/bad-ranges',
    area: 'resources',
    group,
    title:
      'answers 400 invalid_parameter for a range ending where it starts, a future start, an unknown time zone or granularity, too many buckets',
    needs: ['call-logs'],
    async run(ctx) {
      const cases: [string, string][] = [
        ['start=2026-03-01T00:00:00Z&end=2026-03-01T00:00:00Z', 'end'],
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

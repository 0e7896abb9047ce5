import { errors } from '../api-error.ts'
import { toTimestamp } from '../clock.ts'
import { parseTimestamp } from '../timestamp.ts'
import type { Handlers, OperationContext } from './operation-handler.ts'
import { bucketBoundaries, type Granularity, zoneFormatter } from './time-buckets.ts'
import type { CallLog } from './types.ts'

const MAX_BUCKETS = 744
const DAY_MS = 86_400_000
const EPOCH_MS = 0

/** Sums kept in integers (cost in 1/10000 USD) so that the series add up to the totals exactly. */
interface Tally {
  call_count: number
  completed_count: number
  analyzed_count: number
  successful_count: number
  duration: number
  costUnits: number
  positive: number
  neutral: number
  negative: number
}

const emptyTally = (): Tally => ({
  call_count: 0,
  completed_count: 0,
  analyzed_count: 0,
  successful_count: 0,
  duration: 0,
  costUnits: 0,
  positive: 0,
  neutral: 0,
  negative: 0,
})

function count(tally: Tally, log: CallLog): void {
  tally.call_count++
  if (log.status === 'completed') {
    tally.completed_count++
    tally.duration += log.duration_seconds ?? 0
    tally.costUnits += Math.round((log.cost_usd ?? 0) * 10_000)
  }
  if (log.analysis) {
    tally.analyzed_count++
    if (log.analysis.successful) tally.successful_count++
    tally[log.analysis.sentiment]++
  }
}

const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals

/** The contract's `AnalyticsMetrics` of a tally (averages over completed calls, rates over analysed ones). */
function metrics(tally: Tally) {
  const completed = tally.completed_count
  return {
    call_count: tally.call_count,
    completed_count: completed,
    analyzed_count: tally.analyzed_count,
    successful_count: tally.successful_count,
    total_duration_seconds: tally.duration,
    // Stryker disable next-line ConditionalExpression,EqualityOperator: with no completed call the average is 0/0, NaN, which JSON writes as null: the same answer
    avg_duration_seconds: completed > 0 ? round(tally.duration / completed, 2) : null,
    total_cost_usd: tally.costUnits / 10_000,
    // Stryker disable next-line ConditionalExpression,EqualityOperator: as above: 0/0 is NaN, written as null
    avg_cost_usd: completed > 0 ? round(tally.costUnits / 10_000 / completed, 4) : null,
    success_rate: tally.analyzed_count > 0 ? round(tally.successful_count / tally.analyzed_count, 4) : null,
    sentiment: { positive: tally.positive, neutral: tally.neutral, negative: tally.negative },
  }
}

/** A range bound as milliseconds at a whole second (any RFC 3339 offset), or 400 naming it. */
function secondOf(value: unknown, param: string): number | undefined {
  if (typeof value !== 'string') return undefined
  const parsed = parseTimestamp(value)
  if (!parsed.ok) throw errors.invalidParameter(param, `${param}: ${parsed.message}`)
  return Math.floor(parsed.ms / 1000) * 1000
}

function parseRange(ctx: OperationContext, granularity: Granularity) {
  const now = Math.floor(ctx.clock.now() / 1000) * 1000
  const end = secondOf(ctx.query.end, 'end') ?? now
  const start = secondOf(ctx.query.start, 'start') ?? end - 7 * DAY_MS
  // Buckets align to weeks and months in any time zone: a range near year 0 would reach year -1.
  if (start < EPOCH_MS)
    throw errors.invalidParameter(
      typeof ctx.query.start === 'string' ? 'start' : 'end',
      'The range must begin at or after 1970-01-01T00:00:00Z (no call is older).',
    )
  if (start > now) throw errors.invalidParameter('start', 'start must not be in the future.')
  if (end <= start) throw errors.invalidParameter('end', 'end must be after start.')
  if (granularity === 'total' && end - start > MAX_BUCKETS * DAY_MS)
    throw errors.invalidParameter(
      'start',
      `With granularity total the range may cover at most ${MAX_BUCKETS} days.`,
    )
  return { start, end }
}

/** A series of tallies over the buckets, and a function that counts a call into it. */
function series(boundaries: number[]) {
  const tallies = boundaries.slice(1).map(emptyTally)
  return {
    tallies,
    add(log: CallLog, at: number) {
      let lo = 0
      let hi = tallies.length - 1
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1
        if ((boundaries[mid] ?? 0) <= at) lo = mid
        else hi = mid - 1
      }
      count(tallies[lo] as Tally, log)
    },
    present: () =>
      tallies.map((tally, i) => ({
        start: toTimestamp(boundaries[i] ?? 0),
        end: toTimestamp(boundaries[i + 1] ?? 0),
        metrics: metrics(tally),
      })),
  }
}

function sumTallies(tallies: Tally[]): Tally {
  const total = emptyTally()
  for (const tally of tallies)
    for (const key of Object.keys(total) as (keyof Tally)[]) total[key] += tally[key]
  return total
}

/** Behaviour of `GET /analytics/calls`: metrics computed from the stored call logs. */
export function analyticsHandlers(): Handlers {
  return {
    getCallAnalytics: {
      run(ctx) {
        const granularity = (ctx.query.granularity as Granularity | undefined) ?? 'day'
        const timezone = (ctx.query.timezone as string | undefined) ?? 'UTC'
        const formatter = zoneFormatter(timezone)
        if (!formatter) throw errors.invalidParameter('timezone', `Unknown time zone '${timezone}'.`)
        const { start, end } = parseRange(ctx, granularity)
        const boundaries = bucketBoundaries(formatter, granularity, start, end, MAX_BUCKETS)
        if (!boundaries)
          throw errors.invalidParameter(
            'start',
            `The range needs more than ${MAX_BUCKETS} ${granularity} buckets.`,
          )
        const groupBy = (ctx.query.group_by as 'agent_id' | 'channel' | 'direction' | undefined) ?? null
        const agentId = (ctx.query.agent_id as string | undefined) ?? null

        const all = series(boundaries)
        const groups = new Map<string, ReturnType<typeof series>>()
        const logs = agentId
          ? ctx.data.callLogs.page({
              limit: Number.MAX_SAFE_INTEGER,
              index: { name: 'agent_id', value: agentId },
            })
          : undefined
        for (const log of logs?.ok ? logs.data : ctx.data.callLogs.values()) {
          const at = Date.parse(log.created_at)
          if (at < start || at >= end) continue
          all.add(log, at)
          if (groupBy) {
            const value = String(log[groupBy])
            let group = groups.get(value)
            if (!group) {
              group = series(boundaries)
              groups.set(value, group)
            }
            group.add(log, at)
          }
        }
        const presentedGroups = groupBy
          ? [...groups]
              .map(([value, group]) => ({
                value,
                totals: sumTallies(group.tallies),
                series: group.present(),
              }))
              .sort((a, b) => b.totals.call_count - a.totals.call_count || (a.value < b.value ? -1 : 1))
              .map((group) => ({ ...group, totals: metrics(group.totals) }))
          : null
        return {
          status: 200,
          body: {
            object: 'call_analytics',
            start: toTimestamp(start),
            end: toTimestamp(end),
            granularity,
            timezone,
            group_by: groupBy,
            agent_id: agentId,
            totals: metrics(sumTallies(all.tallies)),
            series: all.present(),
            groups: presentedGroups,
          },
        }
      },
    },
  }
}

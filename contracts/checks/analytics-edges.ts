import { allLogs } from './call-logs.ts'
import { ensure, expectStatus, inOrder, jsonObject } from './failure.ts'
import { agentBody, scratchAccount } from './fixtures.ts'
import { instant } from './formats.ts'
import type { ContractCheck } from './types.ts'

type Bucket = { start: string; end: string; metrics: Record<string, unknown> }

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
const group = 'Analytics'

/**
 * A zone 12 or 13 hours ahead of UTC whose clocks change at 2 or 3 in the morning: its midnights lie on the other
 * side of a change from the UTC instant of the same wall-clock time, so a bound computed from the offset at the
 * wrong instant is an hour off. 2025: back on 6 April (a day of 25 hours), forward on 28 September (23 hours).
 */
const AUCKLAND = 'Pacific/Auckland'
const DST_RANGE = { start: Date.parse('2025-03-30T00:00:00Z'), end: Date.parse('2025-10-05T00:00:00Z') }

const aucklandClock = new Intl.DateTimeFormat('en-US', {
  timeZone: AUCKLAND,
  hourCycle: 'h23',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
})
const isLocalMidnight = (ms: number) =>
  aucklandClock
    .formatToParts(ms)
    .filter((p) => p.type === 'hour' || p.type === 'minute' || p.type === 'second')
    .every((p) => Number(p.value) === 0)

/**
 * Days in a zone with daylight saving, across both of its changes: every inner bound at local midnight (the
 * contract: "local midnight for `day`"), so the days of the changes last 25 and 23 hours, and each day counts
 * the listed call logs created in it. One request beyond a read-only run's budget.
 */
const dstDays: ContractCheck = {
  id: 'resources/analytics/dst-days',
  area: 'resources',
  group,
  title:
    'begins every day bucket at local midnight in a zone with daylight saving, the days its clocks change included (25 and 23 hours)',
  needs: ['call-logs', 'beyond-read-only'],
  async run(ctx) {
    const logs = await allLogs(ctx)
    const query = `start=${iso(DST_RANGE.start)}&end=${iso(DST_RANGE.end)}&granularity=day&timezone=${AUCKLAND}`
    const exchange = await ctx.call({
      method: 'GET',
      path: `/analytics/calls?${query}`,
      key: ctx.keys.callLogs,
      operationId: 'getCallAnalytics',
    })
    expectStatus(exchange, 200, `for ?${query}`)
    const series = (jsonObject(exchange) as { series: Bucket[] }).series
    const inner = series.slice(1).map((b) => b.start)
    const misplaced = inner.filter((start) => !isLocalMidnight(instant(start)))
    ensure(
      misplaced.length === 0 && series.length > 0,
      `every day of ${AUCKLAND} to begin at local midnight, the days of its clock changes (6 April, 28 September 2025) included (the contract's getCallAnalytics, Buckets)`,
      misplaced.length > 0 ? `buckets beginning at ${misplaced.slice(0, 3).join(', ')}` : 'no buckets',
      exchange,
    )
    const hours = new Set(series.slice(1, -1).map((b) => (instant(b.end) - instant(b.start)) / 3_600_000))
    ensure(
      hours.has(23) && hours.has(25),
      'days of 23 and 25 hours among the whole days (the local midnights on both sides of a clock change)',
      `days of ${[...hours].join(', ')} hours`,
      exchange,
    )
    for (const bucket of series) {
      const [from, to] = [instant(bucket.start), instant(bucket.end)]
      const want = logs.filter((l) => instant(l.created_at) >= from && instant(l.created_at) < to).length
      ensure(
        bucket.metrics.call_count === want,
        `the day ${bucket.start} - ${bucket.end} in ${AUCKLAND} counting the ${want} listed call logs created in it`,
        String(bucket.metrics.call_count),
        exchange,
      )
    }
  },
}

/** Three weeks around one clock change (back on 6 April 2025): a range short enough for any shortcut. */
const DST_WEEKS = { start: Date.parse('2025-03-23T00:00:00Z'), end: Date.parse('2025-04-13T00:00:00Z') }

/**
 * The same over a range of three weeks with one clock change in it: the days after the change still begin at
 * local midnight (a day bucket is not the first midnight plus 24 hours, again and again), the day of the change
 * lasts 25 hours.
 */
const dstWeeks: ContractCheck = {
  id: 'resources/analytics/dst-weeks',
  area: 'resources',
  group,
  title:
    'begins every day bucket of a three-week range at local midnight, the days after a clock change included (not every 24 hours from the first)',
  needs: ['call-logs', 'beyond-read-only'],
  async run(ctx) {
    const query = `start=${iso(DST_WEEKS.start)}&end=${iso(DST_WEEKS.end)}&granularity=day&timezone=${AUCKLAND}`
    const exchange = await ctx.call({
      method: 'GET',
      path: `/analytics/calls?${query}`,
      key: ctx.keys.callLogs,
      operationId: 'getCallAnalytics',
    })
    expectStatus(exchange, 200, `for ?${query}`)
    const series = (jsonObject(exchange) as { series: Bucket[] }).series
    const misplaced = series.slice(1).filter((b) => !isLocalMidnight(instant(b.start)))
    ensure(
      series.length > 0 && misplaced.length === 0,
      `every day of ${AUCKLAND} to begin at local midnight, after the clock change of 6 April 2025 too`,
      misplaced.length > 0
        ? `buckets beginning at ${misplaced
            .slice(0, 3)
            .map((b) => b.start)
            .join(', ')}`
        : 'no buckets',
      exchange,
    )
    const hours = series.slice(1, -1).map((b) => (instant(b.end) - instant(b.start)) / 3_600_000)
    ensure(
      hours.filter((h) => h === 25).length === 1 && hours.every((h) => h === 24 || h === 25),
      'whole days of 24 hours and one of 25 (the day the clocks went back)',
      `days of ${[...new Set(hours)].join(', ')} hours`,
      exchange,
    )
  },
}

/**
 * Groups ordered by `totals.call_count` descending, then `value` ascending (the contract's getCallAnalytics,
 * Grouping), on calls placed for it: three agents of a fresh account get 2, 1 and 1 calls, so that the first
 * group is the agent with the greatest ID (count before value), the other two tie and come by ID, and the calls
 * are placed in an order that matches neither. None of the calls has ended or been analysed yet, so every
 * average and `success_rate` is `null` (nothing completed, nothing analysed), never 0.
 */
const orderedGroups: ContractCheck = {
  id: 'resources/analytics/group-order',
  area: 'resources',
  group,
  title:
    'orders groups by call_count, then by value on a tie, and reports null averages and success_rate while no call has completed or been analysed',
  needs: ['write', 'simulated-calls'],
  async run(ctx) {
    const mock = ctx.mock
    if (!mock) return ctx.skip('needs calls placed through the mock control plane (--provision mock)')
    const { account, name } = await scratchAccount(ctx, mock, 'analytics groups')
    const { value: key } = await mock.createKey(account.id, { type: 'secret', name })
    const created = await inOrder(
      [0, 1, 2].map(() =>
        ctx.call({
          method: 'POST',
          path: '/agents',
          json: agentBody(ctx),
          key,
          sensitive: [key],
          operationId: 'createAgent',
        }),
      ),
    )
    for (const exchange of created) expectStatus(exchange, 201, 'for a valid create-agent body')
    const [low, middle, high] = created.map((e) => String(jsonObject(e).id)).sort() as [
      string,
      string,
      string,
    ]
    // Placed one after another: middle, high, low, high (first seen: middle, high, low).
    const placed: Record<string, unknown>[] = []
    for (const agent of [middle, high, low, high])
      placed.push(await mock.placeCall(account.id, { agent_id: agent, ring_seconds: 60 }))
    const times = placed.map((call) => instant(call.created_at))
    const range = { start: Math.min(...times), end: Math.max(...times) + 1000 }
    const query = `start=${iso(range.start)}&end=${iso(range.end)}&granularity=total&group_by=agent_id`
    const exchange = await ctx.call({
      method: 'GET',
      path: `/analytics/calls?${query}`,
      key,
      sensitive: [key],
      operationId: 'getCallAnalytics',
    })
    expectStatus(exchange, 200, `for ?${query}`)
    const body = jsonObject(exchange) as {
      totals: Record<string, unknown>
      groups: { value: string; totals: Record<string, unknown> }[] | null
    }
    const want = [`${high}:2`, `${low}:1`, `${middle}:1`]
    const got = (body.groups ?? []).map((g) => `${g.value}:${String(g.totals.call_count)}`)
    ensure(
      got.join(' ') === want.join(' '),
      `groups ${want.join(' ')}: call_count descending, then value ascending (the contract's getCallAnalytics, Grouping)`,
      got.join(' ') || 'no groups',
      exchange,
    )
    for (const [what, totals] of [
      ['totals', body.totals],
      ...(body.groups ?? []).map((g) => [`the group ${g.value}`, g.totals] as const),
    ] as const)
      for (const field of ['avg_duration_seconds', 'avg_cost_usd', 'success_rate'])
        ensure(
          totals[field] === null,
          `${what}: ${field} null while no call has completed or been analysed (the contract's getCallAnalytics, Metrics: null when nothing was completed, or analysed)`,
          JSON.stringify(totals[field]),
          exchange,
        )
  },
}

/** Analytics where a calendar or a metric has an edge: clock changes, ties between groups, nothing analysed. */
export const analyticsEdgeChecks: ContractCheck[] = [dstDays, dstWeeks, orderedGroups]

import { type Bucket as CalendarBucket, expectCalendar } from './analytics.ts'
import { allLogs } from './call-logs.ts'
import { ensure, expectError, expectStatus, inOrder, jsonObject } from './failure.ts'
import { agentBody, scratchAccount } from './fixtures.ts'
import { instant, iso } from './formats.ts'
import type { ContractCheck } from './types.ts'

type Bucket = { start: string; end: string; metrics: Record<string, unknown> }

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

/**
 * The default start is `end` minus 7 days whatever the time zone (the contract's getCallAnalytics, Range, and its
 * parameter `start`: "Default `end` minus 7 days"), not local midnight seven days back: days in Auckland ending a
 * second after the newest call log, so that the first day is a partial one and holds the account's calls. The
 * answer's range is exactly those 7 x 24 hours, its days tile it from local midnight to local midnight, and each
 * counts the listed call logs created in it. One request beyond a read-only run's budget.
 */
const defaultStartInTimeZone: ContractCheck = {
  id: 'resources/analytics/default-start-in-a-time-zone',
  area: 'resources',
  group,
  title:
    'takes the default start as end minus 7 days when a time zone is given (a partial first day), not local midnight',
  needs: ['call-logs', 'beyond-read-only'],
  async run(ctx) {
    const logs = await allLogs(ctx)
    const newest = Math.max(...logs.map((l) => instant(l.created_at)))
    if (!Number.isFinite(newest)) return ctx.skip('needs an account with call logs')
    // A second after the newest call log, moved off a local midnight should it fall on one.
    const end = Math.floor(newest / 1000) * 1000 + 1000 + (isLocalMidnight(newest + 1000) ? 1_800_000 : 0)
    const query = `end=${iso(end)}&granularity=day&timezone=${AUCKLAND}`
    const exchange = await ctx.call({
      method: 'GET',
      path: `/analytics/calls?${query}`,
      key: ctx.keys.callLogs,
      operationId: 'getCallAnalytics',
    })
    expectStatus(exchange, 200, `for ?${query}`)
    const body = jsonObject(exchange) as { start: string; end: string; series: CalendarBucket[] }
    const start = end - 7 * 24 * 3_600_000
    ensure(
      instant(body.start) === start && instant(body.end) === end,
      `the range ${iso(start)} - ${iso(end)}: start is end minus 7 days by default, also in a time zone (not local midnight)`,
      `${body.start} - ${body.end}`,
      exchange,
    )
    expectCalendar(body.series, { start, end }, isLocalMidnight, `days in ${AUCKLAND}`, exchange)
    for (const bucket of body.series) {
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
    // The same grouping over an hour before any call: groups an empty array, not null (CallAnalytics: "an array
    // exactly when `group_by` is not `null`"; every analytics answer's conformance checks it).
    const before = `start=${iso(range.start - 7_200_000)}&end=${iso(range.start - 3_600_000)}&granularity=total&group_by=agent_id`
    const empty = await ctx.call({
      method: 'GET',
      path: `/analytics/calls?${before}`,
      key,
      sensitive: [key],
      operationId: 'getCallAnalytics',
    })
    expectStatus(empty, 200, `for ?${before}, an hour without calls`)
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
/** Hours and days of UTC, each range starting on a bound of its granularity. */
/** Hours and days of UTC. */
const WHOLE_UNITS: { granularity: string; unit: number }[] = [
  { granularity: 'hour', unit: 3_600_000 },
  { granularity: 'day', unit: 86_400_000 },
  { granularity: 'week', unit: 7 * 86_400_000 },
]

/** The bound of `unit` after `last`, and the one `count` units before it (weeks begin on Monday). */
function wholeRange(last: number, unit: number, count: number): { start: number; end: number } {
  // 1970-01-05 was a Monday. (Months are left out: 744 of them reach back before 1970, where no call is.)
  const origin = unit === 7 * 86_400_000 ? Date.UTC(1970, 0, 5) : 0
  const end = Math.floor((last - origin) / unit) * unit + unit + origin
  return { start: end - count * unit, end }
}

/**
 * The bucket limit is inclusive (the contract's getCallAnalytics, Range: "at most 744 buckets"): in UTC, ending on
 * the bound of the granularity after the newest call log (so that the buckets hold the account's calls), exactly
 * 744 hours, days or weeks are answered with 744 buckets, and one more is 400 naming `start`. Six requests beyond a
 * read-only run's budget, and seven with the newest call log.
 */
const mostBuckets: ContractCheck = {
  id: 'resources/analytics/most-buckets',
  area: 'resources',
  group,
  title:
    'answers exactly 744 whole hours, days or weeks in UTC with 744 buckets, grouped, and refuses 745 (400 naming start)',
  needs: ['call-logs', 'beyond-read-only'],
  async run(ctx) {
    const newest = await ctx.call({
      method: 'GET',
      path: '/call-logs?limit=1',
      key: ctx.keys.callLogs,
      operationId: 'listCallLogs',
    })
    expectStatus(newest, 200)
    const latest = Date.parse(String((jsonObject(newest).data as { created_at?: string }[])?.[0]?.created_at))
    const last = Number.isNaN(latest) ? Date.parse('2025-01-01T00:00:00Z') : latest
    for (const { granularity, unit } of WHOLE_UNITS)
      for (const count of [744, 745]) {
        const { start, end } = wholeRange(last, unit, count)
        // Grouped: each group's totals add up over up to 744 buckets (every analytics answer's conformance).
        const query = `start=${iso(start)}&end=${iso(end)}&granularity=${granularity}&group_by=direction`
        const exchange = await ctx.call({
          method: 'GET',
          path: `/analytics/calls?${query}`,
          key: ctx.keys.callLogs,
          operationId: 'getCallAnalytics',
        })
        const why = `for ${count} whole ${granularity}s in UTC (?${query})`
        if (count > 744) {
          expectError(
            exchange,
            400,
            { type: 'invalid_request_error', code: 'invalid_parameter', param: 'start' },
            why,
          )
          continue
        }
        expectStatus(exchange, 200, why)
        const series = (jsonObject(exchange) as { series?: unknown[] }).series ?? []
        ensure(series.length === count, `${count} buckets ${why}`, String(series.length), exchange)
      }
  },
}

const BERLIN = 'Europe/Berlin'
const berlinClock = new Intl.DateTimeFormat('en-US', {
  timeZone: BERLIN,
  hourCycle: 'h23',
  weekday: 'short',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
})
const berlinParts = (ms: number) =>
  Object.fromEntries(berlinClock.formatToParts(ms).map((p) => [p.type, p.value])) as Record<string, string>

/** Calendar units where they are easy to get wrong, each one request. */
const UNITS: {
  query: string
  range: { start: number; end: number }
  aligned: (at: number) => boolean
  what: string
  /** The length every bucket has, where the unit has one. */
  length?: number
}[] = [
  {
    // Fourteen months in UTC: months of 28, 30 and 31 days, across a year's end.
    query: 'granularity=month',
    range: { start: Date.parse('2024-12-01T00:00:00Z'), end: Date.parse('2026-02-01T00:00:00Z') },
    aligned: (at) => new Date(at).getUTCDate() === 1 && at % 86_400_000 === 0,
    what: 'months in UTC (each from the 1st at midnight)',
  },
  {
    // Berlin's clocks go back at 01:00 UTC on 26 October 2025: its local 02:00-03:00 happens twice, two hours.
    query: `granularity=hour&timezone=${BERLIN}`,
    range: { start: Date.parse('2025-10-25T22:00:00Z'), end: Date.parse('2025-10-26T04:00:00Z') },
    aligned: (at) => at % 3_600_000 === 0,
    what: `hours in ${BERLIN} across its change back (the repeated local hour two buckets)`,
    length: 3_600_000,
  },
  {
    // Weeks in UTC across a year's end: the week holding 1 January is one week (from Monday 29 December 2025).
    query: 'granularity=week',
    range: { start: Date.parse('2025-12-15T00:00:00Z'), end: Date.parse('2026-01-12T00:00:00Z') },
    aligned: (at) => new Date(at).getUTCDay() === 1 && at % 86_400_000 === 0,
    what: 'weeks in UTC across a new year (each from Monday)',
    length: 7 * 86_400_000,
  },
  {
    // Days in UTC across a leap day: 29 February 2024 is a day of its own.
    query: 'granularity=day',
    range: { start: Date.parse('2024-02-27T00:00:00Z'), end: Date.parse('2024-03-03T00:00:00Z') },
    aligned: (at) => at % 86_400_000 === 0,
    what: 'days in UTC across 29 February 2024',
    length: 86_400_000,
  },
  {
    // Eight weeks in Berlin around the same change: every week from Monday at local midnight.
    query: `granularity=week&timezone=${BERLIN}`,
    range: { start: Date.parse('2025-09-28T22:00:00Z'), end: Date.parse('2025-11-23T23:00:00Z') },
    aligned: (at) => {
      const parts = berlinParts(at)
      return parts.weekday === 'Mon' && [parts.hour, parts.minute, parts.second].every((v) => Number(v) === 0)
    },
    what: `weeks in ${BERLIN} (each from Monday at local midnight)`,
  },
]

/**
 * Buckets follow the calendar of the zone (the contract's getCallAnalytics: hours, local midnight for `day`,
 * Monday for `week`, the 1st for `month`): months of every length in UTC, the hour repeated when clocks go back
 * (two buckets of an hour each, not one of two), weeks across that change. Three requests beyond a read-only
 * run's budget.
 */
const calendarUnits: ContractCheck = {
  id: 'resources/analytics/calendar-units',
  area: 'resources',
  group,
  title:
    'tiles a range with calendar months, with real hours across a change of the clocks, and with weeks from Monday',
  needs: ['call-logs', 'beyond-read-only'],
  async run(ctx) {
    for (const unit of UNITS) {
      const query = `start=${iso(unit.range.start)}&end=${iso(unit.range.end)}&${unit.query}`
      const exchange = await ctx.call({
        method: 'GET',
        path: `/analytics/calls?${query}`,
        key: ctx.keys.callLogs,
        operationId: 'getCallAnalytics',
      })
      expectStatus(exchange, 200, `for ?${query}`)
      const series = (jsonObject(exchange) as { series?: CalendarBucket[] }).series ?? []
      expectCalendar(series, unit.range, unit.aligned, unit.what, exchange)
      const { length } = unit
      if (length !== undefined)
        for (const bucket of series)
          ensure(
            instant(bucket.end) - instant(bucket.start) === length,
            `${unit.what}: every bucket ${length / 60_000} minutes long`,
            `${bucket.start} - ${bucket.end}`,
            exchange,
          )
    }
  },
}

/**
 * A bucket that has ended still follows its calls (the contract's getCallAnalytics: "every call log whose
 * `created_at` lies in the range", durations "over completed calls only"; deleteCallLog: "no longer counts in
 * analytics"): a call placed, a range of two seconds around its start read once that range has passed, while the
 * call is under way, again once it has completed, and again once its call log is deleted.
 */
const closedBuckets: ContractCheck = {
  id: 'resources/analytics/closed-buckets',
  area: 'resources',
  group,
  title:
    'keeps a range that has ended following its calls: a call completed after the range ended counts as completed, a call log deleted then counts no more',
  needs: ['write', 'simulated-calls'],
  async run(ctx) {
    const mock = ctx.mock
    if (!mock) return ctx.skip('needs calls placed through the mock control plane (--provision mock)')
    const { account, name } = await scratchAccount(ctx, mock, 'closed buckets')
    const { value: key } = await mock.createKey(account.id, { type: 'secret', name })
    const v1 = (method: string, path: string, json?: unknown) =>
      ctx.call({ method, path, json, key, sensitive: [key], fresh: true })
    const agent = await v1('POST', '/agents', agentBody(ctx))
    expectStatus(agent, 201, 'for a valid create-agent body')
    const call = await mock.placeCall(account.id, {
      agent_id: jsonObject(agent).id,
      ring_seconds: 1,
      duration_seconds: 2,
    })
    const second = Math.floor(instant(call.created_at) / 1000) * 1000
    const query = `start=${iso(second - 1000)}&end=${iso(second + 1000)}&granularity=hour`
    const totals = async (when: string) => {
      const exchange = await v1('GET', `/analytics/calls?${query}`)
      expectStatus(exchange, 200, `for ?${query} ${when}`)
      return { exchange, totals: (jsonObject(exchange) as { totals: Record<string, unknown> }).totals }
    }
    await ctx.wait(1.5, 'the range around the call to end while the call is under way')
    const during = await totals('while the call is under way')
    ensure(
      during.totals.call_count === 1,
      'call_count 1 while the call is under way',
      String(during.totals.call_count),
      during.exchange,
    )
    await ctx.wait(3, 'the call to complete')
    const log = await v1('GET', `/call-logs/${String(call.id)}`)
    expectStatus(log, 200)
    const ended = jsonObject(log)
    if (ended.status !== 'completed')
      return ctx.skip(`the call is ${String(ended.status)}, not completed, after its end`)
    const after = await totals('after the call completed')
    ensure(
      after.totals.completed_count === 1 && after.totals.total_duration_seconds === ended.duration_seconds,
      `completed_count 1 and total_duration_seconds ${String(ended.duration_seconds)} once the call completed, after the range ended`,
      `${String(after.totals.completed_count)} and ${String(after.totals.total_duration_seconds)}`,
      after.exchange,
    )
    expectStatus(await v1('DELETE', `/call-logs/${String(call.id)}`), 200, 'deleting the call log')
    const gone = await totals('after its call log was deleted')
    ensure(
      gone.totals.call_count === 0,
      'call_count 0 once the call log is deleted',
      String(gone.totals.call_count),
      gone.exchange,
    )
  },
}

/** Agents of the many-groups check: agent `i` gets `i + 1` calls, so that counts run past 9 (9 before 10 as text). */
const MANY_AGENTS = 12

/**
 * Groups by agent with more agents than a page of anything, and counts of one and two digits (the contract's
 * getCallAnalytics, Grouping: groups by `call_count` descending, then `value`): twelve agents of a fresh account
 * with 1 to 12 calls each are twelve groups, from 12 calls down to 1, and (with every analytics answer) add up to
 * the totals.
 */
const manyGroups: ContractCheck = {
  id: 'resources/analytics/many-groups',
  area: 'resources',
  group,
  title: 'groups twelve agents with 1 to 12 calls each: twelve groups, by call_count descending as numbers',
  needs: ['write', 'simulated-calls'],
  async run(ctx) {
    const mock = ctx.mock
    if (!mock) return ctx.skip('needs calls placed through the mock control plane (--provision mock)')
    const { account, name } = await scratchAccount(ctx, mock, 'many groups')
    await mock.updateAccount(account.id, { limits: { hourly: 100_000, burst: 100_000 } })
    const { value: key } = await mock.createKey(account.id, { type: 'secret', name })
    const created = await inOrder(
      Array.from({ length: MANY_AGENTS }, () =>
        ctx.call({ method: 'POST', path: '/agents', json: agentBody(ctx), key, sensitive: [key] }),
      ),
    )
    const agents = created.map((exchange) => {
      expectStatus(exchange, 201, 'for a valid create-agent body')
      return String(jsonObject(exchange).id)
    })
    const times: number[] = []
    for (const [i, agent] of agents.entries())
      for (let call = 0; call <= i; call++)
        times.push(
          instant((await mock.placeCall(account.id, { agent_id: agent, ring_seconds: 60 })).created_at),
        )
    const query = `start=${iso(Math.min(...times) - 1000)}&end=${iso(Math.max(...times) + 1000)}&granularity=total&group_by=agent_id`
    const exchange = await ctx.call({
      method: 'GET',
      path: `/analytics/calls?${query}`,
      key,
      sensitive: [key],
      operationId: 'getCallAnalytics',
      fresh: true,
    })
    expectStatus(exchange, 200, `for ?${query}`)
    const groups = (jsonObject(exchange).groups ?? []) as { value: string; totals: { call_count: number } }[]
    const want = agents.map((agent, i) => `${agent}:${i + 1}`).reverse()
    const got = groups.map((g) => `${g.value}:${g.totals.call_count}`)
    ensure(
      got.join(' ') === want.join(' '),
      `${MANY_AGENTS} groups, by call_count descending: ${want.join(' ')}`,
      got.join(' ') || 'no groups',
      exchange,
    )
  },
}

export const analyticsEdgeChecks: ContractCheck[] = [
  manyGroups,
  dstDays,
  dstWeeks,
  defaultStartInTimeZone,
  orderedGroups,
  mostBuckets,
  calendarUnits,
  closedBuckets,
]

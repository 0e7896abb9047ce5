import { ensure, expectError, expectStatus, jsonObject, listData } from './failure.ts'
import { UNKNOWN_IDS } from './fixtures.ts'
import { byInstant, instant } from './formats.ts'
import { listAll } from './lists.ts'
import type { CheckContext, ContractCheck } from './types.ts'

type Log = Record<string, unknown>

/** A filter of `GET /call-logs` and the rule it stands for (the contract's description of each). */
export interface Filter {
  /** Which family of filters it belongs to (one check per family). */
  family: string
  query: string
  matches: (log: Log) => boolean
  /** Walk every page of the filtered listing (the filter must hold on later pages too), not only the first. */
  walk?: boolean
  /** The rule the filter stands for, where a failure should name it. */
  rule?: string
}

/** The largest page: filtered listings are compared one page each. */
export const PAGE = 100
/** How many call logs a boundary filter (started_*, min/max duration) selects at most, ties aside. */
const BOUNDARY = 40

const duration = (log: Log) => (typeof log.duration_seconds === 'number' ? log.duration_seconds : null)

/**
 * Filters built from the data itself, boundary values included (exclusive times, inclusive durations). Two
 * values per filter of a field, one in a read-only run (`readOnly`): a filter that is ignored, or compares the
 * wrong field, shows on either; the second finds a value the target spells or maps wrongly.
 */
export function filtersFor(logs: readonly Log[], readOnly: boolean): Filter[] {
  const filters: Filter[] = []
  const pick = <T>(values: T[]) => [...new Set(values)].slice(0, readOnly ? 1 : 2)
  for (const status of pick(logs.map((l) => String(l.status))))
    filters.push({ family: 'status', query: `status=${status}`, matches: (l) => l.status === status })
  for (const direction of pick(logs.map((l) => String(l.direction))))
    filters.push({
      family: 'direction',
      query: `direction=${direction}`,
      matches: (l) => l.direction === direction,
    })
  for (const agent of pick(logs.map((l) => String(l.agent_id))))
    filters.push({ family: 'agent_id', query: `agent_id=${agent}`, matches: (l) => l.agent_id === agent })
  // Boundaries near an end of the range, so that each filter selects less than a page and the object at the
  // boundary (which an inclusive or exclusive mistake adds or drops) would show on the first page.
  const started = logs
    .map((l) => l.started_at)
    .filter((v): v is string => typeof v === 'string')
    .sort(byInstant)
  const near = (count: number) => Math.min(BOUNDARY, Math.floor(count / 2))
  const after = started[started.length - 1 - near(started.length)]
  const before = started[near(started.length)]
  if (after && before) {
    filters.push({
      family: 'started',
      query: `started_after=${after}`,
      matches: (l) => instant(l.started_at) > instant(after),
    })
    filters.push({
      family: 'started',
      query: `started_before=${before}`,
      matches: (l) => instant(l.started_at) < instant(before),
    })
  }
  const durations = logs
    .map(duration)
    .filter((d): d is number => d !== null)
    .sort((a, b) => a - b)
  const high = durations[durations.length - 1 - near(durations.length)]
  const low = durations[near(durations.length)]
  if (high !== undefined && low !== undefined) {
    filters.push({
      family: 'duration',
      query: `min_duration_seconds=${high}`,
      matches: (l) => (duration(l) ?? -1) >= high,
    })
    filters.push({
      family: 'duration',
      query: `max_duration_seconds=${low}`,
      matches: (l) => {
        const d = duration(l)
        return d !== null && d <= low
      },
    })
    filters.push({
      family: 'duration',
      query: 'min_duration_seconds=0',
      matches: (l) => duration(l) !== null,
    })
    const median = durations[Math.floor(durations.length / 2)] as number
    filters.push({
      family: 'combined',
      query: `status=completed&direction=inbound&min_duration_seconds=${median}`,
      matches: (l) => l.status === 'completed' && l.direction === 'inbound' && (duration(l) ?? -1) >= median,
    })
  }
  // One filter is walked page by page (a filter must hold on later pages too): the cheapest that has them.
  const sizes = filters.map((f) => logs.filter(f.matches).length)
  const paged = filters.filter((_, i) => (sizes[i] ?? 0) > PAGE)
  const cheapest = paged.sort((a, b) => logs.filter(a.matches).length - logs.filter(b.matches).length)[0]
  if (cheapest) cheapest.walk = true
  return filters
}

async function allLogs(ctx: CheckContext) {
  const full = await listAll(ctx, '/call-logs', {
    key: ctx.keys.callLogs,
    maxPages: 10,
    operationId: 'listCallLogs',
  })
  if (!full.complete)
    return ctx.skip('more than 1000 call logs: filters are checked only on accounts that can be listed whole')
  if (full.items.length === 0) return ctx.skip('the account has no call logs')
  return full.items
}

const group = 'Call logs'

const FAMILIES: [string, string][] = [
  ['status', 'filters by status'],
  ['direction', 'filters by direction'],
  ['agent_id', 'filters by agent_id'],
  ['started', 'filters by started_after and started_before, both exclusive'],
  ['duration', 'filters by min and max duration, both inclusive, never matching calls without a duration'],
  ['combined', 'combines filters with AND'],
]

/**
 * A filtered listing starts with exactly the call logs `filter` selects among the whole listing `logs`, in the
 * same order, and `has_more` says whether more match (one page of 100, or every page when `filter.walk`).
 */
async function expectFiltered(ctx: CheckContext, logs: readonly Log[], filter: Filter): Promise<void> {
  const walked = filter.walk
    ? await listAll(ctx, '/call-logs', {
        key: ctx.keys.callLogs,
        query: filter.query,
        limit: PAGE,
        maxPages: 10,
        operationId: 'listCallLogs',
      })
    : undefined
  const page =
    walked?.pages[0] ??
    (await ctx.call({
      method: 'GET',
      path: `/call-logs?limit=${PAGE}&${filter.query}`,
      key: ctx.keys.callLogs,
      operationId: 'listCallLogs',
    }))
  expectStatus(page, 200, `for ?${filter.query}${filter.rule ? ` (${filter.rule})` : ''}`)
  const matching = logs.filter(filter.matches).map((l) => String(l.id))
  const want = walked ? matching : matching.slice(0, PAGE)
  const ids = (walked?.items ?? listData(page)).map((l) => String(l.id))
  const extra = ids.filter((id) => !want.includes(id))
  const missing = want.filter((id) => !ids.includes(id))
  const sample = [...extra, ...missing].slice(0, 3).join(', ')
  ensure(
    extra.length === 0 && missing.length === 0,
    `?${filter.query} to select the ${matching.length} matching call logs${walked ? ' on its pages' : ` (the first ${want.length} on the first page)`}${filter.rule ? ` (${filter.rule})` : ''}`,
    `${ids.length} call logs (${extra.length} not matching, ${missing.length} missing: ${sample})`,
    page,
  )
  ensure(
    ids.join() === want.join(),
    `?${filter.query} to list the matching call logs in the order of the whole listing (newest first)`,
    'another order',
    page,
  )
  const more = matching.length > PAGE
  if (!walked)
    ensure(
      jsonObject(page).has_more === more,
      `has_more ${more} for ?${filter.query} (${matching.length} match)`,
      String(jsonObject(page).has_more),
      page,
    )
}

/**
 * One family of filters: each filtered listing starts with exactly the call logs it selects among the whole
 * listing, in the same order, and `has_more` says whether more match. One page per filter (the largest,
 * 100): the whole listing is read once and shared by every check that needs it.
 */
function filterCheck([family, title]: [string, string]): ContractCheck {
  return {
    id: `resources/call-logs/filter-${family}`,
    area: 'resources',
    group,
    title,
    needs: ['call-logs'],
    async run(ctx) {
      const logs = await allLogs(ctx)
      for (const filter of filtersFor(logs, ctx.readOnly).filter((f) => f.family === family))
        await expectFiltered(ctx, logs, filter)
    },
  }
}

/**
 * Bounds given together: `min_duration_seconds` equal to `max_duration_seconds` is a range of one value, both
 * bounds inclusive (the contract refuses only min > max), so it selects exactly the call logs of that duration;
 * `started_after` and `started_before` together select the call logs started strictly between them. The values
 * come from the data, so that each selects some call logs and fewer than a page. Two requests beyond a
 * read-only run's budget.
 */
const filterBounds: ContractCheck = {
  id: 'resources/call-logs/filter-bounds',
  area: 'resources',
  group,
  title:
    'selects with min_duration_seconds equal to max_duration_seconds the call logs of exactly that duration, and with started_after and started_before the call logs started strictly between them',
  needs: ['call-logs', 'beyond-read-only'],
  async run(ctx) {
    const logs = await allLogs(ctx)
    const counts = new Map<number, number>()
    for (const d of logs.map(duration)) if (d !== null) counts.set(d, (counts.get(d) ?? 0) + 1)
    // The duration most call logs share (at most a page of them): an exclusive bound at either end drops them all.
    const [shared] =
      [...counts].filter(([, n]) => n <= PAGE).sort(([a, x], [b, y]) => y - x || a - b)[0] ?? []
    if (shared !== undefined)
      await expectFiltered(ctx, logs, {
        family: 'bounds',
        query: `min_duration_seconds=${shared}&max_duration_seconds=${shared}`,
        matches: (l) => duration(l) === shared,
        rule: "the contract's listCallLogs: both duration bounds inclusive, only min > max refused",
      })
    // Two start times near the newest end, a few call logs apart, with call logs started at either one excluded.
    const started = [
      ...new Set(logs.map((l) => l.started_at).filter((v): v is string => typeof v === 'string')),
    ]
      .sort(byInstant)
      .filter((v, i, all) => i === 0 || instant(v) !== instant(all[i - 1]))
    const last = started.length - 1 - Math.min(3, Math.floor(started.length / 4))
    const [after, before] = [started[Math.max(0, last - Math.min(BOUNDARY, PAGE - 10))], started[last]]
    if (after !== undefined && before !== undefined && instant(after) < instant(before))
      await expectFiltered(ctx, logs, {
        family: 'bounds',
        query: `started_after=${after}&started_before=${before}`,
        matches: (l) => instant(l.started_at) > instant(after) && instant(l.started_at) < instant(before),
        rule: "the contract's listCallLogs: both started_* bounds exclusive, combined with AND",
      })
    if (shared === undefined && after === undefined)
      ctx.skip('no call log has a duration or a start time to take bounds from')
  },
}

/**
 * A cursor inside a filtered listing: the cursor may be any call log of the account, one the filter does not
 * select included (the contract: only "an ID that is not an object of that collection" is 400
 * `invalid_cursor`), and the page holds the call logs the filter selects on that side of it, in the order of
 * the whole listing. The cursor is a call log of another agent than the one filtered on, once in each
 * direction. Two requests beyond a read-only run's budget.
 */
const filterWithCursor: ContractCheck = {
  id: 'resources/call-logs/filter-with-cursor',
  area: 'resources',
  group,
  title:
    'takes as a cursor of a listing filtered by agent_id a call log of another agent, and pages the filtered call logs from its place in either direction',
  needs: ['call-logs', 'beyond-read-only'],
  async run(ctx) {
    const logs = await allLogs(ctx)
    const counts = new Map<string, number>()
    for (const log of logs) counts.set(String(log.agent_id), (counts.get(String(log.agent_id)) ?? 0) + 1)
    const [agent] = [...counts].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))[0] ?? []
    const selects = (l: Log) => String(l.agent_id) === agent
    const others = logs.flatMap((log, i) => (selects(log) ? [] : [i]))
    // After a call log of another agent in the middle: the page of the agent's older call logs.
    const middle = others.find((i) => i >= Math.floor(logs.length / 2) && logs.slice(i + 1).some(selects))
    // Before one near the newest end: the agent's newer call logs, fewer than a page, so all of them.
    const early = others
      .filter((i) => {
        const newer = logs.slice(0, i).filter(selects).length
        return newer > 0 && newer < PAGE
      })
      .at(-1)
    if (agent === undefined || (middle === undefined && early === undefined))
      return ctx.skip('the call logs do not belong to several agents, with some of one agent on either side')
    const rule = `a call log of another agent as the cursor (the contract: only an ID that is not an object of the collection is 400 invalid_cursor)`
    if (middle !== undefined)
      await expectFiltered(ctx, logs.slice(middle + 1), {
        family: 'cursor',
        query: `agent_id=${agent}&starting_after=${String(logs[middle]?.id)}`,
        matches: selects,
        rule,
      })
    if (early !== undefined)
      await expectFiltered(ctx, logs.slice(0, early), {
        family: 'cursor',
        query: `agent_id=${agent}&ending_before=${String(logs[early]?.id)}`,
        matches: selects,
        rule,
      })
  },
}

/** Call logs: each filter family against the whole listing, bad filter values, the full object. */
export const callLogChecks: ContractCheck[] = [
  ...FAMILIES.map(filterCheck),
  filterBounds,
  filterWithCursor,
  {
    id: 'resources/call-logs/bad-filters',
    area: 'resources',
    group,
    title: 'answers 400 invalid_parameter for filter values of the wrong shape or contradicting ranges',
    needs: ['call-logs'],
    async run(ctx) {
      // Single-parameter values as the query checks (bad-input) send them, so that the answers are shared.
      const cases: [string, string][] = [
        ['status=not_a_valid_value', 'status'],
        ['direction=not_a_valid_value', 'direction'],
        ['agent_id=!!', 'agent_id'],
        ['started_after=not%20a%20valid%20value', 'started_after'],
        ['min_duration_seconds=-1', 'min_duration_seconds'],
        ['min_duration_seconds=60&max_duration_seconds=10', 'max_duration_seconds'],
        // Equal bounds: started_after >= started_before is 400 (a reversed range is refused by the same rule).
        ['started_after=2026-03-01T00:00:00Z&started_before=2026-03-01T00:00:00Z', 'started_before'],
      ]
      for (const [query, param] of cases) {
        const exchange = await ctx.call({
          method: 'GET',
          path: `/call-logs?${query}`,
          key: ctx.keys.callLogs,
          operationId: 'listCallLogs',
        })
        expectError(
          exchange,
          400,
          {
            type: 'invalid_request_error',
            code: 'invalid_parameter',
            ...(query.includes('&') ? {} : { param }),
          },
          `for ?${query}`,
        )
      }
    },
  },
  {
    id: 'resources/call-logs/detail',
    area: 'resources',
    group,
    title: 'returns a listed call log in full, with its transcript, and 404 for an unknown ID',
    needs: ['call-logs'],
    async run(ctx) {
      // The first page of the whole listing (shared with the other call-log checks); two of its call logs.
      const list = await ctx.call({
        method: 'GET',
        path: `/call-logs?limit=${PAGE}`,
        key: ctx.keys.callLogs,
        operationId: 'listCallLogs',
      })
      for (const summary of ((jsonObject(list).data as Log[]) ?? []).slice(0, 2)) {
        const one = await ctx.call({
          method: 'GET',
          path: `/call-logs/${String(summary.id)}`,
          key: ctx.keys.callLogs,
          operationId: 'getCallLog',
        })
        expectStatus(one, 200)
        const { transcript, ...rest } = jsonObject(one)
        ensure(Array.isArray(transcript), 'a transcript array', typeof transcript, one)
        ensure(
          JSON.stringify(rest) === JSON.stringify(summary),
          'the listed fields unchanged in the full call log',
          'different fields',
          one,
        )
      }
      const unknown = await ctx.call({
        method: 'GET',
        path: `/call-logs/${UNKNOWN_IDS.call_log_id}`,
        key: ctx.keys.callLogs,
        operationId: 'getCallLog',
      })
      expectError(unknown, 404, { code: 'resource_not_found', param: 'call_log_id' })
    },
  },
]

export { allLogs }

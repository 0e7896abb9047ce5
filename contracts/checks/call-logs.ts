import { ensure, expectError, expectStatus, jsonObject } from './failure.ts'
import { UNKNOWN_IDS } from './fixtures.ts'
import { listAll } from './lists.ts'
import type { CheckContext, ContractCheck } from './types.ts'

type Log = Record<string, unknown>

/** A filter of `GET /call-logs` and the rule it stands for (the contract's description of each). */
interface Filter {
  /** Which family of filters it belongs to (one check per family). */
  family: string
  query: string
  matches: (log: Log) => boolean
}

const time = (value: unknown) => (typeof value === 'string' ? Date.parse(value) : Number.NaN)
const duration = (log: Log) => (typeof log.duration_seconds === 'number' ? log.duration_seconds : null)

/** Filters built from the data itself, boundary values included (exclusive times, inclusive durations). */
function filtersFor(logs: readonly Log[]): Filter[] {
  const filters: Filter[] = []
  const pick = <T>(values: T[]) => [...new Set(values)].slice(0, 3)
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
  const started = logs
    .map((l) => l.started_at)
    .filter((v): v is string => typeof v === 'string')
    .sort()
  const middle = started[Math.floor(started.length / 2)]
  if (middle) {
    const at = Date.parse(middle)
    filters.push({
      family: 'started',
      query: `started_after=${middle}`,
      matches: (l) => time(l.started_at) > at,
    })
    filters.push({
      family: 'started',
      query: `started_before=${middle}`,
      matches: (l) => time(l.started_at) < at,
    })
  }
  const durations = logs
    .map(duration)
    .filter((d): d is number => d !== null)
    .sort((a, b) => a - b)
  const median = durations[Math.floor(durations.length / 2)]
  if (median !== undefined) {
    filters.push({
      family: 'duration',
      query: `min_duration_seconds=${median}`,
      matches: (l) => (duration(l) ?? -1) >= median,
    })
    filters.push({
      family: 'duration',
      query: `max_duration_seconds=${median}`,
      matches: (l) => {
        const d = duration(l)
        return d !== null && d <= median
      },
    })
    filters.push({
      family: 'duration',
      query: 'min_duration_seconds=0',
      matches: (l) => duration(l) !== null,
    })
    filters.push({
      family: 'combined',
      query: `status=completed&direction=inbound&min_duration_seconds=${median}`,
      matches: (l) => l.status === 'completed' && l.direction === 'inbound' && (duration(l) ?? -1) >= median,
    })
  }
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

/** One family of filters: each returns exactly the call logs it selects among the whole listing. */
function filterCheck([family, title]: [string, string]): ContractCheck {
  return {
    id: `resources/call-logs/filter-${family}`,
    area: 'resources',
    group,
    title,
    needs: ['call-logs'],
    async run(ctx) {
      const logs = await allLogs(ctx)
      for (const filter of filtersFor(logs).filter((f) => f.family === family)) {
        const got = await listAll(ctx, '/call-logs', {
          key: ctx.keys.callLogs,
          query: filter.query,
          maxPages: 10,
          operationId: 'listCallLogs',
        })
        const want = logs.filter(filter.matches).map((l) => String(l.id))
        const ids = got.items.map((l) => String(l.id))
        const extra = ids.filter((id) => !want.includes(id))
        const missing = want.filter((id) => !ids.includes(id))
        const sample = [...extra, ...missing].slice(0, 3).join(', ')
        ensure(
          extra.length === 0 && missing.length === 0,
          `?${filter.query} to select the ${want.length} matching call logs`,
          `${ids.length} call logs (${extra.length} not matching, ${missing.length} missing: ${sample})`,
          got.pages[0],
        )
      }
    },
  }
}

/** Call logs: each filter family against the whole listing, bad filter values, the full object. */
export const callLogChecks: ContractCheck[] = [
  ...FAMILIES.map(filterCheck),
  {
    id: 'resources/call-logs/bad-filters',
    area: 'resources',
    group,
    title: 'answers 400 invalid_parameter for filter values of the wrong shape or contradicting ranges',
    needs: ['call-logs'],
    async run(ctx) {
      const cases: [string, string][] = [
        ['status=exploded', 'status'],
        ['direction=sideways', 'direction'],
        ['agent_id=not-an-agent', 'agent_id'],
        ['started_after=yesterday', 'started_after'],
        ['min_duration_seconds=-1', 'min_duration_seconds'],
        ['min_duration_seconds=60&max_duration_seconds=10', 'max_duration_seconds'],
        ['started_after=2026-03-02T00:00:00Z&started_before=2026-03-01T00:00:00Z', 'started_before'],
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
      const list = await ctx.call({
        method: 'GET',
        path: '/call-logs?limit=5',
        key: ctx.keys.callLogs,
        operationId: 'listCallLogs',
      })
      for (const summary of (jsonObject(list).data as Log[]) ?? []) {
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

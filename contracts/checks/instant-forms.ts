import { resolveRef } from '../contract/load-contract.ts'
import type { ContractOperation } from '../contract/operations.ts'
import { ensure, expectError, expectStatus, listData } from './failure.ts'
import type { CheckContext, ContractCheck } from './types.ts'

/** Offsets other than UTC's: half an hour east of it, and whole hours west of it. */
const OFFSETS = ['+05:30', '-08:00']
const HOUR_MS = 3_600_000

/** The instant `ms` written with `offset` (`2026-03-09T17:30:00+05:30` for 12:00 UTC). */
export function withOffset(ms: number, offset: string): string {
  const minutes =
    (offset.startsWith('-') ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)))
  return `${new Date(ms + minutes * 60_000).toISOString().slice(0, 19)}${offset}`
}

const utc = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

/** An answer with every timestamp read as the instant it names, so that two spellings of one instant compare equal. */
function instants(value: unknown): unknown {
  if (
    typeof value === 'string' &&
    /^\d{4}-\d\d-\d\d[Tt]\d\d:\d\d/.test(value) &&
    !Number.isNaN(Date.parse(value))
  )
    return Date.parse(value)
  if (Array.isArray(value)) return value.map(instants)
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, instants(item)]))
  return value
}

/** The GET operations with date-time query parameters, and those parameters in the contract's order. */
function timedReads(ctx: CheckContext): { operation: ContractOperation; names: string[] }[] {
  return ctx.contract.operations
    .filter((operation) => operation.method === 'get' && !operation.path.includes('{'))
    .map((operation) => ({
      operation,
      names: operation.parameters
        .filter((p) => p.in === 'query')
        .filter(
          (p) => resolveRef<{ format?: string }>(ctx.contract.document, p.schema).format === 'date-time',
        )
        .map((p) => p.name),
    }))
    .filter(({ names }) => names.length > 0)
}

/**
 * Timestamps sent in query parameters "may carry any RFC 3339 offset; they are compared as the instants they name"
 * (the contract's Conventions): every read with date-time parameters (the call-log filters, the analytics range)
 * gives the same answer for one range written in UTC, at +05:30 and at -08:00. The range is the week before the
 * newest call log, so that it holds calls. Derived from the contract: a new date-time parameter is covered too.
 */
const offsetInstants: ContractCheck = {
  id: 'resources/instants/other-offsets',
  area: 'resources',
  group: 'Instants',
  title: 'answers a range written at another UTC offset (+05:30, -08:00) as the same range written in UTC',
  needs: ['call-logs', 'beyond-read-only'],
  async run(ctx) {
    const key = ctx.keys.callLogs
    const newest = await ctx.call({
      method: 'GET',
      path: '/call-logs?limit=1',
      key,
      operationId: 'listCallLogs',
    })
    expectStatus(newest, 200)
    const latest = Date.parse(String(listData(newest)[0]?.started_at ?? listData(newest)[0]?.created_at))
    if (Number.isNaN(latest)) return ctx.skip('no call log to set a range by')
    const end = Math.ceil((latest + 1) / HOUR_MS) * HOUR_MS
    const bounds = [end - 7 * 24 * HOUR_MS, end]
    for (const { operation, names } of timedReads(ctx)) {
      const query = (write: (ms: number) => string) =>
        names
          .slice(0, bounds.length)
          .map((name, i) => `${name}=${encodeURIComponent(write(bounds[i] as number))}`)
          .join('&')
      const read = (q: string) =>
        ctx.call({ method: 'GET', path: `${operation.path}?${q}`, key, operationId: operation.operationId })
      const plain = await read(query(utc))
      expectStatus(plain, 200, `for ?${query(utc)}`)
      for (const offset of OFFSETS) {
        const q = query((ms) => withOffset(ms, offset))
        const other = await read(q)
        expectStatus(other, 200, `for ?${q}`)
        ensure(
          JSON.stringify(instants(other.response.json)) === JSON.stringify(instants(plain.response.json)),
          `the answer to ?${q} to be the answer to ?${query(utc)}, the same instants in UTC`,
          'another answer',
          other,
        )
      }
    }
  },
}

/** Dates RFC 3339 forms but no calendar has: a 30th of February, a 31st of April, a 29th of February of 2025. */
const IMPOSSIBLE = ['2026-02-30T00:00:00Z', '2025-04-31T12:00:00Z', '2025-02-29T00:00:00Z']

/**
 * A date-time that names no instant is refused, not rolled over into the next month (RFC 3339, 5.7: the day must
 * exist in its month and year; the contract: a value of the wrong shape is 400 `invalid_parameter` naming it):
 * every date-time query parameter of the contract given each impossible date alone.
 */
const impossibleDates: ContractCheck = {
  id: 'bad-input/impossible-dates',
  area: 'bad-input',
  group: 'Instants',
  title:
    'answers 400 naming the parameter for a date-time on a day its month does not have (30 February, 31 April)',
  needs: ['call-logs', 'beyond-read-only'],
  async run(ctx) {
    for (const { operation, names } of timedReads(ctx))
      for (const name of names)
        for (const date of IMPOSSIBLE) {
          const query = `${name}=${date}`
          const exchange = await ctx.call({
            method: 'GET',
            path: `${operation.path}?${query}`,
            key: ctx.keys.callLogs,
            operationId: operation.operationId,
          })
          expectError(
            exchange,
            400,
            { type: 'invalid_request_error', code: 'invalid_parameter', param: name },
            `for ?${query}`,
          )
        }
  },
}

/**
 * Instants are compared as they are, fractions of a second included (the contract's Conventions: "compared as the
 * instants they name"), and a window may be as wide as the data: the newest call log (started at `t`) is listed
 * for `started_after` 0.4 s and 0.6 s before `t` and `started_before` 0.4 s after it, and not for `started_after`
 * 0.4 s after it; a window from 2000 to 2100 lists the same page as no window at all.
 */
const fractionsAndWidths: ContractCheck = {
  id: 'resources/instants/fractions-and-widths',
  area: 'resources',
  group: 'Instants',
  title:
    'compares started_after and started_before with their fractions of a second, and takes a window of any width',
  needs: ['call-logs', 'beyond-read-only'],
  async run(ctx) {
    const key = ctx.keys.callLogs
    const read = (query: string) =>
      ctx.call({ method: 'GET', path: `/call-logs?${query}`, key, operationId: 'listCallLogs' })
    const plain = await read('limit=100')
    expectStatus(plain, 200)
    // A start on a whole second: where a target writes fractions, the fraction it shows is what it compares, and
    // the probes below would need to know it (docs/decisions/011-allowed-forms.md: fractions or none).
    const whole = listData(plain).filter((item) => Date.parse(String(item.started_at)) % 1000 === 0)
    const newest = whole[0]
    const started = Date.parse(String(newest?.started_at))
    const at = (ms: number) => new Date(ms).toISOString()
    const probes: (readonly [string, boolean])[] = newest
      ? [
          [`started_after=${at(started - 400)}`, true],
          [`started_after=${at(started - 600)}`, true],
          [`started_before=${at(started + 400)}`, true],
          [`started_after=${at(started + 400)}`, false],
        ]
      : []
    if (!newest) ctx.note('no call log starts on a whole second: fractions of a second not probed')
    for (const [query, listed] of probes) {
      const answer = await read(`limit=100&${query}`)
      expectStatus(answer, 200, `for ?${query}`)
      const ids = listData(answer).map((item) => item.id)
      ensure(
        ids.includes(newest?.id) === listed,
        `${String(newest?.id)} (started ${String(newest?.started_at)}) ${listed ? '' : 'not '}listed for ?${query}`,
        listed ? 'not listed' : 'listed',
        answer,
      )
    }
    const wide = 'started_after=2000-01-01T00:00:00Z&started_before=2100-01-01T00:00:00Z'
    const all = await read(`limit=100&${wide}`)
    expectStatus(all, 200, `for ?${wide}`)
    ensure(
      listData(all)
        .map((item) => item.id)
        .join() ===
        listData(plain)
          .map((item) => item.id)
          .join(),
      `?${wide} to list what no window lists`,
      'another page',
      all,
    )
  },
}

/** Instants written at any offset, with fractions, in windows of any width, and dates no calendar has. */
export const instantFormChecks: ContractCheck[] = [offsetInstants, fractionsAndWidths, impossibleDates]

import { resolveRef } from '../contract/load-contract.ts'
import { fillPath } from '../contract/operations.ts'
import type { Exchange } from '../http/exchange.ts'
import { type Bucket, expectBucketCounts, expectCalendar } from './analytics.ts'
import { allLogs, type Filter, filtersFor, PAGE } from './call-logs.ts'
import { CheckSkipped, ensure, expectStatus, jsonObject, listData } from './failure.ts'
import { createAgent } from './fixtures.ts'
import { instant, otherOffset, sameMeaning } from './formats.ts'
import { listAll } from './lists.ts'
import type { CheckContext, ContractCheck } from './types.ts'

/**
 * Relations between answers that hold on any correct implementation, whatever its data: what QA can check on
 * a staging it has no model of and may not write to. Each relation is built from requests other checks send
 * too (the whole call-log listing, the first page of each list, each read operation's answer, the filtered
 * listings), so that within a run most of it is answered from the run's cache: what a relation adds is the
 * comparison, and a request only where a relation needs one of its own (a page back, a HEAD, another form).
 */

type Item = Record<string, unknown>

const ids = (items: readonly Item[]) => items.map((item) => String(item.id))
const group = 'Relations'
const DAY_MS = 86_400_000

/** What differs between two lists of IDs, for a failure message: the first few missing and extra ones. */
function difference(got: readonly string[], want: readonly string[]): string {
  if (got.join() === want.join())
    return `the same ${got.length} objects in the same order, some fields different`
  const missing = want.filter((id) => !got.includes(id))
  const extra = got.filter((id) => !want.includes(id))
  if (missing.length === 0 && extra.length === 0) return `the same ${got.length} objects in another order`
  const few = (list: string[]) => list.slice(0, 3).join(', ') + (list.length > 3 ? ', ...' : '')
  return [
    `${got.length} objects`,
    missing.length > 0 ? `${missing.length} missing (${few(missing)})` : '',
    extra.length > 0 ? `${extra.length} not expected (${few(extra)})` : '',
  ]
    .filter(Boolean)
    .join(', ')
}

/** The two answers carry the same status and the same body (an error's own `request_id` aside). */
function expectSameAnswer(got: Exchange, want: Exchange, what: string): void {
  const body = (exchange: Exchange) => {
    const json = structuredClone(exchange.response.json) as { error?: Item } | undefined
    if (json?.error && typeof json.error === 'object') delete json.error.request_id
    return json
  }
  ensure(
    got.response.status === want.response.status && sameMeaning(body(got), body(want)),
    `${what}: the answer of ${want.request.method} ${want.request.url.replace(/^.*?\/v1(?=\/)/, '')} (${want.response.status}, the same body)`,
    `${got.response.status}, ${sameMeaning(body(got), body(want)) ? 'the same body' : `another body: ${got.response.text.slice(0, 160)}`}`,
    got,
  )
}

/**
 * A filtered call-log listing walked both ways: forward with `starting_after` over every page (the pages the
 * filter check walks, shared), then back with `ending_before` from the first object of the last page to the
 * start. Both walks give exactly the call logs of the whole listing that match, in its order, each once;
 * `has_more` is true on every page but the last one in each direction.
 */
async function filteredPages(ctx: CheckContext): Promise<void> {
  const key = ctx.keys.callLogs
  const logs = await allLogs(ctx)
  const filters = filtersFor(logs, ctx.readOnly)
  // The filter the filter check walks (more than a page of 100 match), else, on a small account, the one that
  // selects the most, in pages of half of them.
  let filter: Filter | undefined = filters.find((f) => f.walk)
  let limit = PAGE
  if (!filter) {
    const [most] = filters
      .map((f) => ({ f, count: logs.filter(f.matches).length }))
      .sort((a, b) => b.count - a.count)
    if (!most || most.count < 2)
      return ctx.skip('no filter selects two call logs or more: there is nothing to page through')
    filter = most.f
    limit = Math.ceil(most.count / 2)
  }
  const want = ids(logs.filter(filter.matches))
  const forward = await listAll(ctx, '/call-logs', {
    key,
    query: filter.query,
    limit,
    maxPages: 10,
    operationId: 'listCallLogs',
  })
  const last = forward.pages.at(-1) as Exchange
  const got = ids(forward.items)
  ensure(
    got.join() === want.join(),
    `?${filter.query}, walked with limit=${limit} and starting_after, to give the ${want.length} matching call logs of the whole listing, each once, in its order`,
    difference(got, want),
    last,
  )
  const onLast = listData(last).length
  ensure(
    onLast > 0,
    `a last page with call logs: the page before it said has_more true`,
    'an empty page',
    last,
  )

  let end = want.length - onLast
  let cursor = want[end] as string
  const back: string[] = []
  while (end > 0) {
    const exchange = await ctx.call({
      method: 'GET',
      path: `/call-logs?limit=${limit}&${filter.query}&ending_before=${cursor}`,
      key,
      operationId: 'listCallLogs',
    })
    expectStatus(exchange, 200, `for ?${filter.query}&ending_before=${cursor}`)
    const page = ids(listData(exchange))
    const expected = want.slice(Math.max(0, end - limit), end)
    ensure(
      page.join() === expected.join(),
      `the ${expected.length} matching call logs just before ${cursor}, newest first (${expected.slice(0, 2).join(', ')}, ...)`,
      difference(page, expected),
      exchange,
    )
    const more = end - limit > 0
    ensure(
      jsonObject(exchange).has_more === more,
      `has_more ${more} going back, with ${end - expected.length} matching call logs before this page`,
      String(jsonObject(exchange).has_more),
      exchange,
    )
    back.unshift(...page)
    end -= expected.length
    cursor = page[0] as string
  }
  ensure(
    back.join() === want.slice(0, want.length - onLast).join(),
    'the walk back to cover every matching call log before the last page once',
    difference(back, want.slice(0, want.length - onLast)),
  )
}

/** A list and a read by ID of the same objects. */
interface Pair {
  name: string
  list: string
  get: string
  key: (ctx: CheckContext) => string | undefined
}

const PAIRS: Pair[] = [
  { name: 'agents', list: 'listAgents', get: 'getAgent', key: (ctx) => ctx.keys.secret },
  { name: 'team members', list: 'listTeamMembers', get: 'getTeamMember', key: (ctx) => ctx.keys.secret },
  { name: 'integrations', list: 'listIntegrations', get: 'getIntegration', key: (ctx) => ctx.keys.secret },
  { name: 'call logs', list: 'listCallLogs', get: 'getCallLog', key: (ctx) => ctx.keys.callLogs },
]

type Schema = { properties?: Record<string, unknown>; items?: unknown }

/** The fields of the documented 200 body of an operation, or of its list entries (`data.items`). */
function fieldsOf(ctx: CheckContext, operationId: string, entries: boolean): Set<string> {
  const document = ctx.contract.document
  let schema = resolveRef<Schema>(document, ctx.contract.operation(operationId).responses.get('200')?.schema)
  if (entries) {
    const data = resolveRef<Schema>(document, schema.properties?.data)
    schema = resolveRef<Schema>(document, data.items)
  }
  return new Set(Object.keys(schema.properties ?? {}))
}

/**
 * The first object of each list, read by its ID, equals its entry: every field of the list entry has the same
 * value (timestamps as instants), and the object has no other field than those its schema adds to the entry's
 * (`transcript` for a call log, read from the contract). The reads are those of the read operations' checks.
 */
async function objectsAndEntries(ctx: CheckContext): Promise<void> {
  let compared = 0
  for (const pair of PAIRS) {
    const key = pair.key(ctx)
    if (!key) {
      ctx.note(`${pair.name}: no key that may read them`)
      continue
    }
    const list = ctx.contract.operation(pair.list)
    const read = async () => {
      const exchange = await ctx.call({ method: 'GET', path: list.path, key })
      expectStatus(exchange, 200)
      return exchange
    }
    let listed = await read()
    if (listData(listed).length === 0 && pair.list === 'listAgents' && ctx.target.destructive) {
      await createAgent(ctx)
      listed = await read()
    }
    const entry = listData(listed)[0]
    if (!entry) {
      ctx.note(`${pair.name}: none to read`)
      continue
    }
    const operation = ctx.contract.operation(pair.get)
    const param = /\{([^}]+)\}/.exec(operation.path)?.[1] ?? ''
    const one = await ctx.call({
      method: 'GET',
      path: fillPath(operation.path, { [param]: String(entry.id) }),
      key,
      operationId: pair.get,
    })
    expectStatus(one, 200, `for ${pair.name} ${String(entry.id)}, the first of ${list.path}`)
    const object = jsonObject(one)
    const entryFields = fieldsOf(ctx, pair.list, true)
    const added = [...fieldsOf(ctx, pair.get, false)].filter((field) => !entryFields.has(field))
    const fields = new Set([...Object.keys(entry), ...Object.keys(object)].filter((f) => !added.includes(f)))
    for (const field of fields)
      ensure(
        sameMeaning(entry[field], object[field]),
        `${one.request.method} ${operation.path.replace(`{${param}}`, String(entry.id))} equal to its entry in ${list.path}${added.length > 0 ? ` (but for ${added.join(', ')})` : ''}: ${field} ${JSON.stringify(entry[field] ?? null)}`,
        `${field} ${JSON.stringify(object[field] ?? null)}`,
        one,
      )
    compared++
  }
  if (compared === 0) ctx.skip('no list holds an object to read')
}

/**
 * The analytics of the default range (the last 7 days, by day in UTC: the read operation's own request) agree
 * with the call logs listed: the days tile the range, each day's `call_count` and the total are the call logs
 * of the whole listing created in them. The range is the one the answer states (the target's clock). Only
 * counts are compared: the status and analysis of a call still going on may change between the two requests,
 * its `created_at` never does; the analytics check compares every metric over older calls.
 */
async function analyticsAndLogs(ctx: CheckContext): Promise<void> {
  // Analytics first, then the listing (as a run does): a call created in between is after the range's end.
  const analytics = await ctx.call({
    method: 'GET',
    path: '/analytics/calls',
    key: ctx.keys.callLogs,
    operationId: 'getCallAnalytics',
  })
  expectStatus(analytics, 200)
  const logs = await allLogs(ctx)
  const body = jsonObject(analytics) as { start: string; end: string; totals: Item; series: Bucket[] }
  const range = { start: instant(body.start), end: instant(body.end) }
  expectCalendar(body.series, range, (at) => at % DAY_MS === 0, 'days in UTC', analytics)
  const inRange = logs.filter(
    (l) => instant(l.created_at) >= range.start && instant(l.created_at) < range.end,
  )
  ensure(
    body.totals.call_count === inRange.length,
    `totals.call_count ${inRange.length}: the listed call logs created in [${body.start}, ${body.end})`,
    String(body.totals.call_count),
    analytics,
  )
  expectBucketCounts(body.series, inRange, 'the default range', analytics)
}

/** Headers of an answer that describe the moment it was given, not the request: compared by presence only. */
const OF_THE_MOMENT = new Set([
  'request-id',
  'ratelimit',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
])

/**
 * A proxy's own answer to HEAD (Prism: problem+json, no Request-Id, which every answer of the implementation has)
 * shows nothing of the implementation; HEAD has no body from which runner/prism.ts could tell it: the check is not
 * applicable through that proxy.
 */
export function skipProxyHead(head: Exchange, path: string): void {
  if (
    head.response.headers['request-id'] === undefined &&
    /problem\+json/.test(head.response.headers['content-type'] ?? '')
  )
    throw new CheckSkipped(
      `not applicable through this proxy: it answered HEAD ${path} ${head.response.status} itself (problem+json without Request-Id)`,
      true,
    )
}

/**
 * HEAD is answered like GET without a body (the contract's conventions, RFC 9110 section 9.3.2): the same
 * status, no body, and the headers the contract documents for the answer, with the same values where they
 * describe the request rather than the moment (`Content-Type`, `RateLimit-Policy`, ...). The GET is the list
 * operation's own check's request.
 */
async function headLikeGet(ctx: CheckContext): Promise<void> {
  const operation = ctx.contract.operation('listAgents')
  const get = await ctx.call({ method: 'GET', path: operation.path, operationId: operation.operationId })
  const head = await ctx.call({ method: 'HEAD', path: operation.path, conformance: false })
  skipProxyHead(head, operation.path)
  const status = get.response.status
  expectStatus(head, status, `for HEAD ${operation.path}, as for GET`)
  ensure(head.response.text === '', 'HEAD answered without a body', head.response.text.slice(0, 80), head)
  const documented = Object.keys(operation.responses.get(String(status))?.headers ?? {})
  for (const name of new Set(['content-type', ...documented])) {
    const [want, got] = [get.response.headers[name], head.response.headers[name]]
    ensure(
      (want === undefined) === (got === undefined),
      `HEAD ${operation.path} with the headers of GET: ${name} ${want === undefined ? 'absent' : 'present'}`,
      got === undefined ? `no ${name}` : `${name}: ${got}`,
      head,
    )
    if (want !== undefined && !OF_THE_MOMENT.has(name))
      ensure(want === got, `HEAD ${operation.path} with GET's ${name}: ${want}`, String(got), head)
  }
}

/** `started_after` -> `started%5Fafter`: the underscores of a name percent-encoded (RFC 3986: the same name). */
const encodedName = (name: string) => name.replace(/_/g, '%5F')

/**
 * A request written in another form that means the same (RFC 3986 and the contract): the parameters in
 * reverse order, names percent-encoded, and each value percent-encoded; a timestamp written at another
 * offset with a fraction and a lower-case `t` (the contract accepts any RFC 3339 form as the instant it names),
 * any other value with its first character percent-encoded.
 */
function otherForm(query: string): string {
  return query
    .split('&')
    .reverse()
    .map((pair) => {
      const [name = '', value = ''] = pair.split('=')
      const decoded = decodeURIComponent(value)
      const written = otherOffset(decoded)
      const encoded = written
        ? encodeURIComponent(written)
        : `%${(decoded.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(2, '0')}${encodeURIComponent(decoded.slice(1))}`
      return `${encodedName(name)}=${encoded}`
    })
    .join('&')
}

/**
 * The Bearer scheme is matched case-insensitively (the contract): `GET /user` with `bEARER <key>`
 * (authentication/scheme-case's request) gets the very answer of `Bearer <key>` (the run's first request).
 */
async function bearerCase(ctx: CheckContext): Promise<void> {
  const bearer = await ctx.call({ method: 'GET', path: '/user', operationId: 'getUser' })
  const mixed = await ctx.call({
    method: 'GET',
    path: '/user',
    key: null,
    authorization: `bEARER ${ctx.keys.secret}`,
    operationId: 'getUser',
  })
  expectSameAnswer(mixed, bearer, 'GET /user with "bEARER <key>"')
}

/**
 * Equivalent requests get the same answer: a list without `limit` and the first 20 of the list (the
 * contract's default), and a filtered listing with its parameters reordered, percent-encoded and its
 * timestamp written at another offset.
 */
async function equivalentRequests(ctx: CheckContext): Promise<void> {
  for (const pair of PAIRS.filter((p) => p.list !== 'listIntegrations')) {
    const key = pair.key(ctx)
    if (!key) continue
    const path = ctx.contract.operation(pair.list).path
    const plain = await ctx.call({ method: 'GET', path, key, operationId: pair.list })
    const hundred = await ctx.call({ method: 'GET', path: `${path}?limit=100`, key, operationId: pair.list })
    expectStatus(plain, 200)
    expectStatus(hundred, 200)
    const whole = listData(hundred)
    const first = whole.slice(0, 20)
    const more = whole.length > 20 || jsonObject(hundred).has_more === true
    ensure(
      sameMeaning(listData(plain), first) && jsonObject(plain).has_more === more,
      `GET ${path} without limit: the first ${first.length} of ?limit=100 (the default limit is 20), has_more ${more}`,
      `${difference(ids(listData(plain)), ids(first))}, has_more ${String(jsonObject(plain).has_more)}`,
      plain,
    )
  }

  if (!ctx.keys.callLogs) return ctx.note('call-log listings not compared: no key that may read call logs')
  const logs = await allLogs(ctx)
  const filters = filtersFor(logs, ctx.readOnly)
  const filter = filters.find((f) => f.query.startsWith('started_after=')) ?? filters[0]
  if (!filter) return ctx.note('call-log listings not compared: no filter to write another way')
  const query = `limit=${PAGE}&${filter.query}`
  const canonical = await ctx.call({
    method: 'GET',
    path: `/call-logs?${query}`,
    key: ctx.keys.callLogs,
    operationId: 'listCallLogs',
  })
  const form = otherForm(query)
  const other = await ctx.call({
    method: 'GET',
    path: `/call-logs?${form}`,
    key: ctx.keys.callLogs,
    operationId: 'listCallLogs',
  })
  expectSameAnswer(other, canonical, `GET /call-logs?${form} (the same parameters, written another way)`)
}

/** Relations that hold on any target, whatever its data: read-only, mostly from answers the run already has. */
export const relationChecks: ContractCheck[] = [
  {
    id: 'resources/relations/filtered-pages',
    area: 'resources',
    group,
    title:
      'joins the pages of a filtered listing up to the whole listing filtered, forward with starting_after and back with ending_before: no repeat, no gap, newest first, has_more true until the end',
    needs: ['call-logs'],
    run: filteredPages,
  },
  {
    id: 'resources/relations/objects-and-entries',
    area: 'resources',
    group,
    title:
      'returns each object read by ID equal to its list entry (agents, team members, integrations; a call log with its transcript besides)',
    run: objectsAndEntries,
  },
  {
    id: 'resources/relations/analytics-and-logs',
    area: 'resources',
    group,
    title:
      'counts in the default analytics (each day of the last 7, and the total) exactly the listed call logs created in them',
    needs: ['call-logs'],
    run: analyticsAndLogs,
  },
  {
    id: 'resources/relations/head',
    area: 'resources',
    group,
    title: 'answers HEAD like GET without a body: the same status and documented headers',
    run: headLikeGet,
  },
  {
    id: 'resources/relations/equivalent-requests',
    area: 'resources',
    group,
    title:
      'answers equivalent requests alike: a list without limit as its first 20, a listing with its parameters reordered and percent-encoded and a timestamp at another offset',
    run: equivalentRequests,
  },
  {
    id: 'resources/relations/bearer-case',
    area: 'resources',
    group,
    title: 'answers a request with the Bearer scheme in another case exactly as with Bearer',
    run: bearerCase,
  },
]

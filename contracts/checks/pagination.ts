import type { Exchange } from '../http/exchange.ts'
import { ensure, expectError, expectStatus, jsonObject, listData } from './failure.ts'
import { createAgent, inviteMember, UNKNOWN_IDS } from './fixtures.ts'
import { listAll, newestFirst } from './lists.ts'
import type { CheckContext, ContractCheck, Need } from './types.ts'

/** A paginated collection and how to make sure it holds a few objects. */
interface Collection {
  name: string
  path: string
  operationId: string
  unknownId: string
  needs: Need[]
  key: (ctx: CheckContext) => string | undefined
  /** Creates objects when the run may write; read-only runs use what exists. */
  fill?: (ctx: CheckContext) => Promise<void>
}

const COLLECTIONS: Collection[] = [
  {
    name: 'Agents',
    path: '/agents',
    operationId: 'listAgents',
    unknownId: UNKNOWN_IDS.agent_id as string,
    needs: [],
    key: (ctx) => ctx.keys.secret,
    fill: async (ctx) => {
      for (let i = 0; i < 7; i++) await createAgent(ctx)
    },
  },
  {
    name: 'Team members',
    path: '/team-members',
    operationId: 'listTeamMembers',
    unknownId: UNKNOWN_IDS.member_id as string,
    needs: [],
    key: (ctx) => ctx.keys.secret,
    fill: async (ctx) => {
      for (let i = 0; i < 5; i++) await inviteMember(ctx)
    },
  },
  {
    name: 'Call logs',
    path: '/call-logs',
    operationId: 'listCallLogs',
    unknownId: UNKNOWN_IDS.call_log_id as string,
    needs: ['call-logs'],
    key: (ctx) => ctx.keys.callLogs,
  },
]

const ids = (items: readonly Record<string, unknown>[]) => items.map((item) => String(item.id))

async function page(ctx: CheckContext, c: Collection, query: string): Promise<Exchange> {
  const exchange = await ctx.call({
    method: 'GET',
    path: `${c.path}?${query}`,
    key: c.key(ctx),
    operationId: c.operationId,
  })
  expectStatus(exchange, 200, `for ?${query}`)
  return exchange
}

/** The page size of the walk: three pages forward (the first, a middle and the last one), at most 100. */
const walkLimit = (count: number) => Math.max(1, Math.min(Math.ceil(count / 3), 100))

/** The whole listing, page by page (shared by the walk and the bounds of one collection). */
const fullListing = (ctx: CheckContext, c: Collection) =>
  listAll(ctx, c.path, { key: c.key(ctx), maxPages: 5, operationId: c.operationId })

/**
 * Walks forward with `starting_after` over the whole listing, then back with `ending_before` from the
 * object two pages in (two pages back: one that has more before it, one that reaches the start).
 */
async function walk(ctx: CheckContext, c: Collection): Promise<void> {
  if (c.fill && ctx.target.destructive) await c.fill(ctx)
  const full = await fullListing(ctx, c)
  const order = newestFirst(full.items)
  ensure(!order, 'items newest first (created_at, then id, descending)', order ?? '', full.pages[0])
  const all = ids(full.items)
  if (all.length < 3)
    return ctx.skip(`needs at least 3 objects in ${c.path} (run with --destructive to create them)`)
  const limit = walkLimit(all.length)

  const forward: string[] = []
  let cursor: string | undefined
  while (forward.length < all.length) {
    const exchange = await page(ctx, c, `limit=${limit}${cursor ? `&starting_after=${cursor}` : ''}`)
    const got = ids(listData(exchange))
    const want = all.slice(forward.length, forward.length + limit)
    ensure(
      got.join() === want.join(),
      `the page after ${cursor ?? 'the start'} to hold ${want.join(', ')}`,
      got.join(', ') || '(empty)',
      exchange,
    )
    forward.push(...got)
    const more = forward.length < all.length || !full.complete
    ensure(
      jsonObject(exchange).has_more === more,
      `has_more ${more} with ${all.length - forward.length} objects left`,
      String(jsonObject(exchange).has_more),
      exchange,
    )
    if (got.length === 0) break
    cursor = got.at(-1)
  }

  const backward: string[] = []
  const start = Math.min(all.length - 1, 2 * limit)
  cursor = all[start]
  while (cursor !== undefined) {
    const exchange = await page(ctx, c, `limit=${limit}&ending_before=${cursor}`)
    const got = ids(listData(exchange))
    const end = start - backward.length
    const want = all.slice(Math.max(0, end - limit), end)
    ensure(
      got.join() === want.join(),
      `the page before ${cursor} to hold ${want.join(', ')} (newest first)`,
      got.join(', ') || '(empty)',
      exchange,
    )
    backward.unshift(...got)
    const more = end - limit > 0
    ensure(
      jsonObject(exchange).has_more === more,
      `has_more ${more} going back`,
      String(jsonObject(exchange).has_more),
      exchange,
    )
    cursor = more ? got[0] : undefined
  }
  ensure(
    backward.join() === all.slice(0, start).join(),
    `the backward walk from ${all[start]} to cover every object before it once`,
    backward.join(', '),
    undefined,
  )
}

/**
 * Limit bounds and cursor errors. The largest limit (100) and a small one are the pages the walk reads too
 * (the whole listing, then `limit=<a third of it>`), so a run sends them once. The pagination parameters are
 * one definition in the contract: the first collection is probed with every bad limit and both cursors at
 * once; the others with an unknown cursor of their own, and (beyond a read-only run) an out-of-range limit.
 */
async function bounds(ctx: CheckContext, c: Collection): Promise<void> {
  const everything = c === COLLECTIONS[0]
  const full = await fullListing(ctx, c)
  const small = walkLimit(full.items.length)
  const few = await page(ctx, c, `limit=${small}`)
  const count = listData(few).length
  ensure(count <= small, `at most ${small} items for limit=${small}`, String(count), few)
  // The same values as the query checks send (bad-input), so that the answers are shared within a run.
  for (const bad of everything ? ['0', '101', '+5', '1.5'] : ctx.readOnly ? [] : ['101']) {
    const exchange = await ctx.call({
      method: 'GET',
      path: `${c.path}?limit=${encodeURIComponent(bad)}`,
      key: c.key(ctx),
      operationId: c.operationId,
    })
    expectError(
      exchange,
      400,
      { type: 'invalid_request_error', code: 'invalid_parameter', param: 'limit' },
      `for limit=${bad}`,
    )
  }
  if (everything) {
    const both = await ctx.call({
      method: 'GET',
      path: `${c.path}?starting_after=${c.unknownId}&ending_before=${c.unknownId}`,
      key: c.key(ctx),
      operationId: c.operationId,
    })
    expectError(both, 400, { code: 'parameter_conflict' }, 'for starting_after with ending_before')
  }
  for (const param of everything ? ['starting_after', 'ending_before'] : ['ending_before']) {
    const exchange = await ctx.call({
      method: 'GET',
      path: `${c.path}?${param}=${c.unknownId}`,
      key: c.key(ctx),
      operationId: c.operationId,
    })
    expectError(exchange, 400, { code: 'invalid_cursor', param }, `for an unknown ${param}`)
  }
}

/** Pagination of every paginated collection: cursors both ways, has_more, order, bounds. */
export const paginationChecks: ContractCheck[] = COLLECTIONS.flatMap((c): ContractCheck[] => [
  {
    id: `resources/pagination/${c.operationId}/walk`,
    area: 'resources',
    group: `Pagination: ${c.name}`,
    title:
      'pages forward and back with cursors: stable newest-first order, no object skipped or repeated, exact has_more',
    needs: c.needs,
    run: (ctx) => walk(ctx, c),
  },
  {
    id: `resources/pagination/${c.operationId}/bounds`,
    area: 'resources',
    group: `Pagination: ${c.name}`,
    title: 'answers 400 for a limit outside 1-100, both cursors at once (first list), or an unknown cursor',
    needs: c.needs,
    run: (ctx) => bounds(ctx, c),
  },
])

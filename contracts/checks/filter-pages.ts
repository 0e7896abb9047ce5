import { allLogs } from './call-logs.ts'
import { ensure, expectStatus, jsonObject, listData } from './failure.ts'
import type { ContractCheck } from './types.ts'

/** The page size: small, so that a filter applied after the page was cut shows. */
const SMALL = 2

/**
 * A filtered listing paged with a small `limit`: each page holds the next `limit` call logs that match, and
 * `has_more` tells whether more match (the contract: "Filters combine with AND"; `limit` is the "maximum number
 * of objects to return"; `has_more` "tells whether more objects exist beyond the returned page"). A filter
 * applied after the page was cut from the unfiltered list leaves pages short and `has_more` false too soon. The
 * whole listing comes from the filter checks (the run's cache); each status and direction that matches more
 * than a page is paged twice.
 */
export const filterPagesCheck: ContractCheck = {
  id: 'resources/call-logs/filter-pages',
  area: 'resources',
  group: 'Call logs',
  title: `pages a listing filtered by status or direction ${SMALL} at a time: full pages of matching call logs in order, has_more while more match`,
  needs: ['call-logs', 'beyond-read-only'],
  async run(ctx) {
    const logs = await allLogs(ctx)
    const filters = (['status', 'direction'] as const).flatMap((field) =>
      [...new Set(logs.map((log) => String(log[field])))].map((value) => ({ field, value })),
    )
    const paged = filters.filter((f) => logs.filter((log) => String(log[f.field]) === f.value).length > SMALL)
    if (paged.length === 0) return ctx.skip(`no status or direction matches more than ${SMALL} call logs`)
    for (const { field, value } of paged) {
      const want = logs.filter((log) => String(log[field]) === value).map((log) => String(log.id))
      let cursor = ''
      for (let page = 0; page < 2 && page * SMALL < want.length; page++) {
        const path = `/call-logs?${field}=${value}&limit=${SMALL}${cursor}`
        const exchange = await ctx.call({
          method: 'GET',
          path,
          key: ctx.keys.callLogs,
          operationId: 'listCallLogs',
        })
        expectStatus(exchange, 200, `for ${path}`)
        const ids = listData(exchange).map((log) => String(log.id))
        const expected = want.slice(page * SMALL, (page + 1) * SMALL)
        ensure(
          ids.join() === expected.join(),
          `the ${page === 0 ? 'first' : 'next'} ${expected.length} call logs with ${field} ${value} in the order of the whole listing (${expected.join(', ')})`,
          ids.join(', ') || 'none',
          exchange,
        )
        const more = want.length > (page + 1) * SMALL
        ensure(
          jsonObject(exchange).has_more === more,
          `has_more ${more} (${want.length} call logs match)`,
          String(jsonObject(exchange).has_more),
          exchange,
        )
        cursor = `&starting_after=${ids.at(-1)}`
      }
    }
  },
}

import type { Exchange } from '../http/exchange.ts'
import { ensure, expectStatus, jsonObject, listData } from './failure.ts'
import { byInstant } from './formats.ts'
import type { CheckContext } from './types.ts'

/** Every item of a list walked page by page. */
export interface ListAllResult {
  items: Record<string, unknown>[]
  /** False when `maxPages` stopped the walk before `has_more` turned false. */
  complete: boolean
  pages: Exchange[]
}

/**
 * Walks a list with `limit` and `starting_after` until `has_more` is false (or `maxPages`), checking that no
 * ID repeats. `query` holds extra filters, e.g. `status=completed`.
 */
export async function listAll(
  ctx: CheckContext,
  path: string,
  options: { key?: string; query?: string; limit?: number; maxPages?: number; operationId?: string } = {},
): Promise<ListAllResult> {
  const limit = options.limit ?? 100
  const items: Record<string, unknown>[] = []
  const pages: Exchange[] = []
  const seen = new Set<string>()
  let cursor: string | undefined
  for (let page = 0; page < (options.maxPages ?? 20); page++) {
    const query = [`limit=${limit}`, options.query, cursor ? `starting_after=${cursor}` : undefined]
      .filter(Boolean)
      .join('&')
    const exchange = await ctx.call({
      method: 'GET',
      path: `${path}?${query}`,
      key: options.key,
      operationId: options.operationId,
    })
    expectStatus(exchange, 200)
    pages.push(exchange)
    const data = listData(exchange)
    ensure(data.length <= limit, `at most limit=${limit} items`, `${data.length} items`, exchange)
    for (const item of data) {
      const id = String(item.id)
      ensure(!seen.has(id), 'every item once in a walk over all pages', `${id} again`, exchange)
      seen.add(id)
      items.push(item)
    }
    const hasMore = jsonObject(exchange).has_more
    if (hasMore !== true) return { items, complete: true, pages }
    ensure(data.length > 0, 'a non-empty page when has_more is true', 'an empty page', exchange)
    cursor = String(data.at(-1)?.id)
  }
  return { items, complete: false, pages }
}

/** Whether items are newest first: `created_at` descending (as instants), ties by `id` descending. */
export function newestFirst(items: readonly Record<string, unknown>[]): string | undefined {
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1] as Record<string, unknown>
    const b = items[i] as Record<string, unknown>
    const order = byInstant(a.created_at, b.created_at) || (String(a.id) < String(b.id) ? -1 : 0)
    if (order < 0)
      return `${String(a.id)} (${String(a.created_at)}) comes before ${String(b.id)} (${String(b.created_at)})`
  }
  return undefined
}

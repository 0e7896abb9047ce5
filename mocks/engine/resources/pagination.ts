import { errors } from '../api-error.ts'
import type { Collection, Listable, PageQuery } from '../collection.ts'

/**
 * The list envelope of docs/decisions/008-lists-and-idempotency.md, or 400 `invalid_cursor` for an unknown cursor; `present` makes
 * each item what the list shows of it.
 */
export function listPage<T extends Listable, V>(
  collection: Collection<T>,
  query: Record<string, unknown>,
  options: Pick<PageQuery<T>, 'filter' | 'index'> & { present: (item: T) => V },
) {
  const page = collection.page({
    // The query validator fills in the contract's default (20) for an absent limit.
    limit: query.limit as number,
    starting_after: query.starting_after as string | undefined,
    ending_before: query.ending_before as string | undefined,
    filter: options.filter,
    index: options.index,
  })
  if (!page.ok) throw errors.invalidCursor(page.param, `No object with id '${page.id}' to page from.`)
  return { object: 'list' as const, data: page.data.map(options.present), has_more: page.has_more }
}

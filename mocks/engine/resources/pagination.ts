import { errors } from '../api-error.ts'
import type { Collection, Listable, PageQuery } from '../collection.ts'

/** The list envelope of decisions.md section 8, or 400 `invalid_cursor` for an unknown cursor. */
export function listPage<T extends Listable, V = T>(
  collection: Collection<T>,
  query: Record<string, unknown>,
  options: Pick<PageQuery<T>, 'filter' | 'index'> & { present?: (item: T) => V } = {},
) {
  const page = collection.page({
    limit: typeof query.limit === 'number' ? query.limit : 20,
    starting_after: query.starting_after as string | undefined,
    ending_before: query.ending_before as string | undefined,
    filter: options.filter,
    index: options.index,
  })
  if (!page.ok) throw errors.invalidCursor(page.param, `No object with id '${page.id}' to page from.`)
  const present = options.present ?? ((item: T) => item as unknown as V)
  return { object: 'list' as const, data: page.data.map(present), has_more: page.has_more }
}

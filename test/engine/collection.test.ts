import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Collection } from '../../mocks/engine/collection.ts'

interface Item {
  id: string
  created_at: string
  group: string
}

const key = (item: Item) => `${item.created_at}\u0000${item.id}`

/** The pages a naive model gives: sort everything newest first, cut at the cursor, filter, slice. */
function model(
  live: Map<string, Item>,
  removed: Map<string, string>,
  query: { limit: number; starting_after?: string; ending_before?: string; group?: string; odd?: boolean },
) {
  const keep = (item: Item) =>
    (query.group === undefined || item.group === query.group) &&
    (!query.odd || Number(item.id.slice(1)) % 2 === 1)
  const newestFirst = [...live.values()].filter(keep).sort((a, b) => (key(a) < key(b) ? 1 : -1))
  const cursorKey = (id: string) => {
    const item = live.get(id)
    return item ? key(item) : removed.get(id)
  }
  if (query.ending_before !== undefined) {
    const at = cursorKey(query.ending_before)
    if (at === undefined) return { ok: false }
    const newer = newestFirst.filter((item) => key(item) > at).reverse()
    return { ok: true, data: newer.slice(0, query.limit).reverse(), has_more: newer.length > query.limit }
  }
  let older = newestFirst
  if (query.starting_after !== undefined) {
    const at = cursorKey(query.starting_after)
    if (at === undefined) return { ok: false }
    older = newestFirst.filter((item) => key(item) < at)
  }
  return { ok: true, data: older.slice(0, query.limit), has_more: older.length > query.limit }
}

const itemArb = fc.record({
  id: fc.integer({ min: 0, max: 40 }).map((n) => `i${n}`),
  created_at: fc.integer({ min: 0, max: 12 }).map((s) => `2026-01-01T00:00:${String(s).padStart(2, '0')}Z`),
  group: fc.constantFrom('a', 'b'),
})

const opArb = fc.oneof(
  fc.record({ kind: fc.constant('load' as const), items: fc.array(itemArb, { maxLength: 15 }) }),
  fc.record({ kind: fc.constant('insert' as const), item: itemArb }),
  fc.record({
    kind: fc.constant('remove' as const),
    id: fc.integer({ min: 0, max: 40 }).map((n) => `i${n}`),
  }),
)

const queryArb = fc.record({
  limit: fc.integer({ min: 1, max: 6 }),
  cursor: fc.option(
    fc.integer({ min: 0, max: 40 }).map((n) => `i${n}`),
    { nil: undefined },
  ),
  before: fc.boolean(),
  group: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
  odd: fc.boolean(),
})

describe('Collection', () => {
  it('pages like a sort of everything, after any loads, inserts and removes, at any cursor', () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { maxLength: 25 }),
        fc.array(queryArb, { minLength: 1, maxLength: 8 }),
        (ops, queries) => {
          const collection = new Collection<Item>(['group'])
          const live = new Map<string, Item>()
          const removed = new Map<string, string>()
          for (const op of ops) {
            if (op.kind === 'load') {
              collection.load(op.items.map((item) => ({ ...item })))
              for (const item of op.items) live.set(item.id, { ...item })
              for (const item of op.items) removed.delete(item.id)
            } else if (op.kind === 'insert') {
              collection.put({ ...op.item })
              live.set(op.item.id, { ...op.item })
              removed.delete(op.item.id)
            } else {
              const item = live.get(op.id)
              collection.remove(op.id)
              if (item) {
                live.delete(op.id)
                removed.set(op.id, key(item))
              }
            }
          }
          expect(collection.values().map((item) => item.id)).toEqual(
            [...live.values()].sort((a, b) => (key(a) < key(b) ? 1 : -1)).map((item) => item.id),
          )
          for (const q of queries) {
            const query = {
              limit: q.limit,
              starting_after: q.before ? undefined : q.cursor,
              ending_before: q.before ? q.cursor : undefined,
              group: q.group,
              odd: q.odd,
            }
            const page = collection.page({
              limit: query.limit,
              starting_after: query.starting_after,
              ending_before: query.ending_before,
              index: q.group === undefined ? undefined : { name: 'group', value: q.group },
              filter: q.odd ? (item) => Number(item.id.slice(1)) % 2 === 1 : undefined,
            })
            const want = model(live, removed, query)
            if (!want.ok) expect(page.ok).toBe(false)
            else {
              expect(page.ok).toBe(true)
              if (page.ok) {
                expect(page.data.map((item) => item.id)).toEqual(want.data?.map((item) => item.id))
                expect(page.has_more).toBe(want.has_more)
              }
            }
          }
        },
      ),
      { numRuns: 500 },
    )
  })
})

import { describe, expect, it } from 'vitest'
import { createJournal, JOURNAL_TABLE, type JournalEntry } from '../../mocks/engine/journal.ts'
import { JournalEntries } from '../../mocks/engine/journal-entries.ts'
import type { ChangeSet } from '../../mocks/engine/state/change-set.ts'
import { createState, type EngineState } from '../../mocks/engine/state/state.ts'

const entry = (id: string, status = 200): JournalEntry => ({
  id,
  object: 'journal_entry',
  at: '2026-01-05T12:00:00Z',
  method: 'GET',
  path: '/v1/agents',
  operation_id: 'listAgents',
  status,
  account_id: status === 404 ? 'acct_b' : 'acct_a',
  key_id: null,
  duration_ms: 1,
  scenario: null,
})

/** The journal as it was kept before its log (a `Map` in insertion order and a ring of ids): the model. */
function mapJournal(state: EngineState, capacity: number) {
  const entries = new Map<string, JournalEntry>()
  const ring: (string | undefined)[] = new Array(capacity)
  let next = 0
  function remember(id: string): void {
    const slot = next++ % capacity
    const oldest = ring[slot]
    ring[slot] = id
    if (oldest !== undefined && oldest !== id) drop(oldest)
  }
  function drop(id: string): void {
    const found = entries.get(id)
    if (!found) return
    entries.delete(id)
    state.record(JOURNAL_TABLE, id, null, found, true)
  }
  state.register(JOURNAL_TABLE, {
    apply(key, value) {
      entries.delete(key)
      if (value === null) return
      entries.set(key, value as JournalEntry)
      remember(key)
    },
    entries: () => entries.entries(),
    clear() {
      entries.clear()
      ring.fill(undefined)
      next = 0
    },
  })
  return {
    record(e: JournalEntry) {
      entries.set(e.id, e)
      state.record(JOURNAL_TABLE, e.id, e, null, true)
      remember(e.id)
    },
    list: ({ status, limit = 100 }: { status?: string; limit?: number } = {}) => {
      const matching = [...entries.values()]
        .reverse()
        .filter((e) => !status || String(e.status)[0] === status[0])
      return { data: matching.slice(0, limit), has_more: matching.length > limit }
    },
    clear: () => {
      for (const id of [...entries.keys()]) drop(id)
    },
  }
}

/** A small deterministic generator (mulberry32), so that a failing sequence can be replayed. */
function generator(seed: number) {
  let a = seed
  return (n: number) => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n)
  }
}

const changesOf = (set: ChangeSet) =>
  set.changes.map(({ table, key, value, before }) => [table, key, value, before])

describe('the journal kept as a log', () => {
  it.each([
    [1, 3, 400],
    [2, 5, 3_000],
    [3, 1000, 4_000],
    [4, 2, 2_500],
  ])(
    'reads and records exactly what the Map-based journal did (seed %i, capacity %i, %i steps)',
    (seed, capacity, steps) => {
      const random = generator(seed)
      const oldState = createState()
      const newState = createState()
      const old = mapJournal(oldState, capacity)
      const now = createJournal(newState, capacity)
      const known: string[] = []
      let counter = 0
      const fresh = () => {
        const id = `req_${seed}_${counter++}`
        known.push(id)
        return id
      }
      const both = (work: (state: EngineState) => void) => {
        work(oldState)
        work(newState)
      }
      for (let step = 0; step < steps; step++) {
        const pick = random(100)
        if (pick < 70) {
          const e = entry(fresh(), [200, 404, 429][random(3)])
          old.record(e)
          now.record(e)
        } else if (pick < 82) {
          // Another process's entries (new ones, known ones again, deletions), learnt of through the store.
          const changes = Array.from({ length: 1 + random(3) }, () => {
            const kind = random(3)
            const key = kind === 0 || known.length === 0 ? fresh() : (known[random(known.length)] as string)
            return { table: JOURNAL_TABLE, key, value: kind === 2 ? null : entry(key, 404) }
          })
          both((state) => state.apply([{ changes }]))
        } else if (pick < 88) {
          // A step whose changes the store could not keep: undone, newest first.
          const e = entry(fresh())
          old.record(e)
          now.record(e)
          oldState.undo(oldState.take())
          newState.undo(newState.take())
        } else if (pick < 91) {
          old.clear()
          now.clear()
        } else if (pick < 93) {
          both((state) => state.apply([{ changes: [], reset: true }]))
        } else {
          expect(now.list({ status: '4xx', limit: 7 })).toEqual(old.list({ status: '4xx', limit: 7 }))
        }
        if (step % 50 === 0 || step === steps - 1) {
          expect(now.list({ limit: 2_000 })).toEqual(old.list({ limit: 2_000 }))
          expect(newState.snapshot()).toEqual(oldState.snapshot())
        }
        expect(changesOf(newState.take())).toEqual(changesOf(oldState.take()))
      }
    },
  )
})

describe('JournalEntries', () => {
  it('keeps the order of a Map through removals at the front, in the middle and after compaction', () => {
    const log = new JournalEntries<number>()
    const model = new Map<string, number>()
    for (let i = 0; i < 5_000; i++) {
      log.appendNew(`id${i}`, i)
      model.set(`id${i}`, i)
      const old = `id${i - 3}`
      if (i % 7 === 0) {
        const middle = `id${i - 1}`
        expect(log.remove(middle)).toBe(model.get(middle))
        model.delete(middle)
      }
      expect(log.remove(old)).toBe(model.get(old))
      model.delete(old)
      expect(log.size).toBe(model.size)
    }
    expect([...log.entries()]).toEqual([...model.entries()])
    expect(log.keys()).toEqual([...model.keys()])
    expect(log.valuesInOrder()).toEqual([...model.values()])
    expect(log.get('id4998')).toBe(4998)
    expect(log.get('id1')).toBeUndefined()
    expect(log.remove('id1')).toBeUndefined()
  })

  it('sets an id the index knows in its place, as Map.set does', () => {
    const log = new JournalEntries<string>()
    log.appendNew('a', 'a1')
    log.appendNew('b', 'b1')
    log.appendNew('c', 'c1')
    expect(log.get('b')).toBe('b1')
    log.appendNew('b', 'b2')
    expect([...log.entries()]).toEqual([
      ['a', 'a1'],
      ['b', 'b2'],
      ['c', 'c1'],
    ])
    log.clear()
    expect([...log.entries()]).toEqual([])
    expect(log.size).toBe(0)
  })
})

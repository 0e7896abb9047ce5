import { describe, expect, it } from 'vitest'
import { createJournal, type JournalEntry } from '../../mocks/engine/journal.ts'
import { createState } from '../../mocks/engine/state/state.ts'

const entry = (id: string, status = 200): JournalEntry => ({
  id,
  object: 'journal_entry',
  at: '2026-01-05T12:00:00Z',
  method: 'GET',
  path: '/v1/agents',
  operation_id: 'listAgents',
  status,
  account_id: null,
  key_id: null,
  duration_ms: 1,
  scenario: null,
})

describe('the journal', () => {
  it('keeps the newest entries up to its capacity, newest first, each recorded by request id', () => {
    const state = createState()
    const journal = createJournal(state, 3)
    for (const id of ['req_a', 'req_b', 'req_c', 'req_d', 'req_e']) journal.record(entry(id))
    expect(journal.list().data.map((e) => e.id)).toEqual(['req_e', 'req_d', 'req_c'])
    const changes = state.take().changes.map(({ key, value }) => [key, value === null ? 'dropped' : 'added'])
    expect(changes).toEqual([
      ['req_a', 'added'],
      ['req_b', 'added'],
      ['req_c', 'added'],
      ['req_d', 'added'],
      ['req_a', 'dropped'],
      ['req_e', 'added'],
      ['req_b', 'dropped'],
    ])
  })

  it("merges another process's entries, learnt of later, within the same bound", () => {
    const state = createState()
    const journal = createJournal(state, 3)
    journal.record(entry('req_here_1'))
    journal.record(entry('req_here_2'))
    state.take()
    state.apply([
      {
        changes: [
          { table: 'journal', key: 'req_there_1', value: entry('req_there_1', 404) },
          { table: 'journal', key: 'req_there_2', value: entry('req_there_2', 429) },
        ],
      },
    ])
    expect(journal.list().data.map((e) => e.id)).toEqual(['req_there_2', 'req_there_1', 'req_here_2'])
    expect(journal.list({ status: '4xx' }).data.map((e) => e.status)).toEqual([429, 404])
    expect(state.snapshot().tables.journal?.map(([key]) => key)).toEqual([
      'req_here_2',
      'req_there_1',
      'req_there_2',
    ])
  })

  it('empties itself, recorded as changes, and starts its bound again', () => {
    const state = createState()
    const journal = createJournal(state, 2)
    journal.record(entry('req_1'))
    journal.record(entry('req_2'))
    state.take()
    journal.clear()
    expect(state.take().changes.map(({ key, value }) => [key, value])).toEqual([
      ['req_1', null],
      ['req_2', null],
    ])
    journal.record(entry('req_3'))
    journal.record(entry('req_4'))
    expect(journal.list().data.map((e) => e.id)).toEqual(['req_4', 'req_3'])
  })
})

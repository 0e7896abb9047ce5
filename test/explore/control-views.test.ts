import { describe, expect, it } from 'vitest'
import {
  accountsDifferences,
  filteredJournalDifferences,
  journalDifferences,
  viewDifferences,
} from '../../contracts/explore/control-views.ts'
import { IdMap } from '../../contracts/explore/id-map.ts'

const ids = new IdMap()
ids.set('key_target1', 'key_model1')
ids.set('key_target2', 'key_model2')
ids.set('usr_target', 'usr_model')

const key = (id: string, account: string, extra: Record<string, unknown> = {}) => ({
  id,
  account_id: account,
  redacted_value: `sk-svc-...${id.slice(-4)}`,
  created_at: '2026-03-01T10:00:00Z',
  rotation_due_at: '2026-05-30T10:00:00Z',
  last_used_at: null,
  ...extra,
})

describe("the dashboard's views compared between the target and the model", () => {
  it('reads the target IDs as the model ones, pairs list items by ID whatever their order, and leaves the key value out', () => {
    const target = { data: [key('key_target2', 'usr_target'), key('key_target1', 'usr_target')] }
    const model = { data: [key('key_model1', 'usr_model'), key('key_model2', 'usr_model')] }
    expect(viewDifferences(target, model, ids, 'place')).toEqual([])
  })

  it('takes instants within a second as equal, and names a field one second further off', () => {
    const near = { data: [key('key_target1', 'usr_target', { last_used_at: '2026-03-01T10:00:06Z' })] }
    const far = { data: [key('key_target1', 'usr_target', { last_used_at: '2026-03-01T10:00:07Z' })] }
    const model = { data: [key('key_model1', 'usr_model', { last_used_at: '2026-03-01T10:00:05Z' })] }
    expect(viewDifferences(near, model, ids, 'place')).toEqual([])
    expect(viewDifferences(far, model, ids, 'place')).toEqual([
      {
        at: 'body.data[id=key_model1].last_used_at',
        target: '"2026-03-01T10:00:07Z"',
        model: '"2026-03-01T10:00:05Z"',
        decidedBy: 'place',
      },
    ])
  })

  it('names a rotation date days off, a key only one side shows, and another plan', () => {
    const target = { data: [key('key_target1', 'usr_target', { rotation_due_at: '2026-06-01T10:00:00Z' })] }
    const model = { data: [key('key_model1', 'usr_model'), key('key_model2', 'usr_model')] }
    expect(viewDifferences(target, model, ids, 'place').map((d) => d.at)).toEqual([
      'body.data[id=key_model1].rotation_due_at',
      'body.data[id=key_model2]',
    ])
    expect(viewDifferences({ plan: 'pro' }, { plan: 'free' }, ids, 'place').map((d) => d.at)).toEqual([
      'body.plan',
    ])
  })
})

describe('the rate-limit windows compared', () => {
  const usage = (used: number, reset: number) => ({
    object: 'rate_limit_usage',
    account_id: 'usr_target',
    windows: [{ policy: 'burst', limit: 10, used, remaining: 10 - used, reset_seconds: reset }],
  })
  it('takes reset_seconds within a second as equal, but an empty window only at 0 on both', () => {
    const model = { ...usage(2, 40), account_id: 'usr_model' }
    expect(viewDifferences(usage(2, 41), model, ids, 'place')).toEqual([])
    expect(viewDifferences(usage(2, 42), model, ids, 'place').map((d) => d.at)).toEqual([
      'body.windows[0].reset_seconds',
    ])
    const empty = { ...usage(0, 0), account_id: 'usr_model' }
    expect(viewDifferences(usage(0, 1), empty, ids, 'place').map((d) => d.at)).toEqual([
      'body.windows[0].reset_seconds',
    ])
    expect(viewDifferences(usage(0, 60), empty, ids, 'place').map((d) => d.at)).toEqual([
      'body.windows[0].reset_seconds',
    ])
  })
})

describe('the journal held to what any journal shows', () => {
  const entry = (at: string, account = 'usr_target') => ({ id: 'req_x', at, account_id: account })
  it('takes newest first within its limit, a second of disorder allowed (requests finishing in any order)', () => {
    const list = {
      data: [entry('2026-03-01T10:00:09Z'), entry('2026-03-01T10:00:10Z'), entry('2026-03-01T10:00:02Z')],
    }
    expect(journalDifferences(list, 100, 'usr_target')).toEqual([])
  })
  it('names entries listed oldest first, entries past the limit, and entries of another account', () => {
    const oldestFirst = { data: [entry('2026-03-01T10:00:02Z'), entry('2026-03-01T10:00:09Z')] }
    expect(journalDifferences(oldestFirst, 100, 'usr_target').map((d) => d.at)).toEqual(['body.data[1].at'])
    expect(journalDifferences(oldestFirst, 1, 'usr_target').map((d) => d.at)).toEqual([
      'body.data.length',
      'body.data[1].at',
    ])
    const mixed = { data: [entry('2026-03-01T10:00:09Z', 'usr_other')] }
    expect(journalDifferences(mixed, 100, 'usr_target').map((d) => d.at)).toEqual(['body.data[0].account_id'])
  })
})

describe('the journal through a status class, and the list of accounts', () => {
  const entry = (id: string, status: number) => ({ id, status, at: '2026-03-01T10:00:00Z' })
  const whole = { data: [entry('req_3', 404), entry('req_2', 200), entry('req_1', 401)], has_more: false }
  it('takes the unfiltered journal with the other statuses left out, and names one that leaves out more', () => {
    expect(
      filteredJournalDifferences(whole, { data: [entry('req_3', 404), entry('req_1', 401)] }, '4xx'),
    ).toEqual([])
    expect(filteredJournalDifferences(whole, { data: [] }, '4xx').map((d) => d.at)).toEqual([
      'body.data (status=4xx)',
    ])
    // A journal cut by its limit says nothing of what the filter should keep.
    expect(filteredJournalDifferences({ ...whole, has_more: true }, { data: [] }, '4xx')).toEqual([])
  })
  it('takes accounts in the order they were made, oldest first, and names one listed newest first', () => {
    const account = (id: string, at: string) => ({ id, created_at: at })
    const inOrder = {
      data: [account('usr_a', '2026-03-01T10:00:00Z'), account('usr_b', '2026-03-01T10:00:05Z')],
    }
    expect(accountsDifferences(inOrder, ['usr_a', 'usr_b'])).toEqual([])
    const newestFirst = { data: [...inOrder.data].reverse() }
    expect(accountsDifferences(newestFirst, ['usr_a', 'usr_b']).map((d) => d.at)).toEqual([
      'body.data (order)',
      'body.data[1].created_at',
    ])
    expect(accountsDifferences(inOrder, ['usr_c']).map((d) => d.at)).toEqual(['body.data[id=usr_c]'])
  })
})

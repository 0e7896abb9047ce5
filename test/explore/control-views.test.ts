import { describe, expect, it } from 'vitest'
import { viewDifferences } from '../../contracts/explore/control-views.ts'
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

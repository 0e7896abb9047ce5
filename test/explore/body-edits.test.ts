import { describe, expect, it } from 'vitest'
import { editedBody } from '../../contracts/explore/body-edits.ts'

const fields = [
  { name: 'status', nullable: false },
  { name: 'webhook_url', nullable: true },
  { name: 'metadata', nullable: false },
]
const usable = () => true

describe('bodies made from what an object was before', () => {
  const history = new Map<string, unknown[]>([
    ['status', ['active', 'inactive']],
    ['webhook_url', ['https://a.example/hook']],
    ['metadata', [{ team: 'x', tier: 'gold' }, { team: 'x' }]],
    ['created_at', ['2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z']],
  ])

  it('sets a field back to a value it had, never a field the request cannot send', () => {
    for (let pick = 0; pick < 20; pick++) {
      const body = editedBody('back', history, fields, pick, 'new', usable)
      expect([{ status: 'active' }, { metadata: { team: 'x', tier: 'gold' } }]).toContainEqual(body)
    }
  })

  it('clears a nullable field that holds a value, and only such a field', () => {
    expect(editedBody('clear', history, fields, 3, 'new', usable)).toEqual({ webhook_url: null })
    const cleared = new Map([['webhook_url', ['https://a.example/hook', null]]])
    expect(editedBody('clear', cleared, fields, 0, 'new', usable)).toBeUndefined()
  })

  it("removes one key of a map field's latest value", () => {
    const twoKeys = new Map([['metadata', [{ a: '1', b: '2' }]]])
    expect([{ metadata: { b: '2' } }, { metadata: { a: '1' } }]).toContainEqual(
      editedBody('drop', twoKeys, fields, 1, 'new', usable),
    )
  })

  it('adds a removed key again with a new value', () => {
    expect(editedBody('readd', history, fields, 0, 'fresh', usable)).toEqual({
      metadata: { team: 'x', tier: 'fresh' },
    })
  })

  it('makes nothing from a past that offers nothing, or from values that may not be sent', () => {
    const once = new Map([['status', ['active']]])
    for (const edit of ['back', 'drop', 'readd'] as const)
      expect(editedBody(edit, once, fields, 0, 'w', usable)).toBeUndefined()
    expect(editedBody('back', history, fields, 0, 'w', () => false)).toBeUndefined()
  })
})

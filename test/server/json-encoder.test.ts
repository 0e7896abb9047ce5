import { describe, expect, it } from 'vitest'
import { createJsonEncoder, encodeJson } from '../../mocks/server/json-encoder.ts'

const voice = { provider: 'azure', speed: 1 }
const agent = (id: string, name: string) => ({
  id,
  object: 'agent',
  name,
  voice,
  metadata: {},
  optional: undefined,
})
const list = (data: unknown[], extra: Record<string, unknown> = {}) => ({
  object: 'list',
  data,
  has_more: false,
  ...extra,
})
const json = (body: unknown) => Buffer.from(JSON.stringify(body))

/** Encodes three times (first listing, second, from kept bytes) and checks each against JSON.stringify. */
function expectSameBytesEveryTime(encoder: ReturnType<typeof createJsonEncoder>, body: () => unknown) {
  for (let i = 0; i < 3; i++)
    expect(Buffer.from(encoder.encode(body(), true)).equals(json(body()))).toBe(true)
}

describe('createJsonEncoder', () => {
  it.each([
    ['a list, data in the middle', () => list([agent('a', 'Ana'), agent('b', 'Bo')])],
    ['a list, data first', () => ({ data: [agent('a', 'Ana')], object: 'list', has_more: true })],
    [
      'a list, data last, undefined fields',
      () => ({ object: 'list', skip: undefined, url: '/v1', data: [agent('a', 'x')] }),
    ],
    ['an empty list', () => list([])],
    ['non-ASCII text', () => list([agent('a', 'Clínica – Recepción 😀')])],
    ['an object', () => agent('a', 'Ana')],
    ['an array', () => [1, 'two', null]],
    ['a list holding non-objects', () => list([1, null, 'x'])],
    ['a list of objects without ids', () => list([{ name: 'x' }, { name: 'y' }])],
  ])('encodes %s exactly as JSON.stringify, every time', (_name, body) => {
    expectSameBytesEveryTime(createJsonEncoder(), body)
  })

  it('encodes strings as they are and undefined as no bytes', () => {
    expect(encodeJson('<p>é</p>').toString('utf8')).toBe('<p>é</p>')
    expect(createJsonEncoder().encode(undefined, true).length).toBe(0)
  })

  it('reuses an item for a copy with the same fields, and not for another view of it', () => {
    const encoder = createJsonEncoder()
    const stored = agent('a', 'Ana')
    expectSameBytesEveryTime(encoder, () => list([{ ...stored }]))
    const { voice: _hidden, ...publishableView } = stored
    expectSameBytesEveryTime(encoder, () => list([{ ...publishableView }]))
    expectSameBytesEveryTime(encoder, () => list([{ ...stored, name: 'Renamed' }]))
  })

  it('sees a nested object changed in place only after invalidate()', () => {
    const encoder = createJsonEncoder()
    const stored = { ...agent('a', 'Ana'), voice: { provider: 'azure', speed: 1 } }
    encoder.encode(list([{ ...stored }]), true)
    encoder.encode(list([{ ...stored }]), true)
    stored.voice.speed = 2
    expect(encoder.encode(list([{ ...stored }]), true).toString()).toContain('"speed":1')
    expect(encoder.encode(list([{ ...stored }]), false).toString()).toContain('"speed":2')
    encoder.invalidate()
    expect(encoder.encode(list([{ ...stored }]), true).toString()).toContain('"speed":2')
  })
})

describe('createJsonEncoder, single objects', () => {
  it('reuses the bytes of an object with an id for a copy with the same fields, from its second answer on', () => {
    const encoder = createJsonEncoder()
    const stored = agent('a', 'Ana')
    const first = encoder.encode({ ...stored }, true)
    expect(typeof first).toBe('string')
    const second = encoder.encode({ ...stored }, true)
    expect(Buffer.isBuffer(second)).toBe(true)
    expect(encoder.encode({ ...stored }, true)).toBe(second)
    expect(Buffer.from(second).equals(json(stored))).toBe(true)
  })

  it.each([
    ['a changed field', { ...agent('a', 'Ana'), name: 'Renamed' }],
    ['a field less', { id: 'a', object: 'agent', name: 'Ana', voice, metadata: {} }],
    [
      'the fields in another order',
      { object: 'agent', id: 'a', name: 'Ana', voice, metadata: {}, optional: undefined },
    ],
    ['another nested object', { ...agent('a', 'Ana'), voice: { ...voice } }],
  ])('encodes anew an object with %s', (_name, changed) => {
    const encoder = createJsonEncoder()
    const stored = agent('a', 'Ana')
    encoder.encode({ ...stored }, true)
    encoder.encode({ ...stored }, true)
    expect(Buffer.from(encoder.encode(changed, true)).equals(json(changed))).toBe(true)
  })

  it('sees a nested object changed in place only after invalidate(), and never without reuse', () => {
    const encoder = createJsonEncoder()
    const stored = { ...agent('a', 'Ana'), voice: { provider: 'azure', speed: 1 } }
    encoder.encode({ ...stored }, true)
    encoder.encode({ ...stored }, true)
    stored.voice.speed = 2
    expect(encoder.encode({ ...stored }, true).toString()).toContain('"speed":1')
    expect(encoder.encode({ ...stored }, false).toString()).toContain('"speed":2')
    encoder.invalidate()
    expect(encoder.encode({ ...stored }, true).toString()).toContain('"speed":2')
  })

  it('encodes objects with a toJSON, without an id, and lists as before', () => {
    const encoder = createJsonEncoder()
    const bodies = [
      { id: 'a', toJSON: () => ({ replaced: true }) },
      { id: 1, name: 'numeric id' },
      { error: { type: 'invalid_request_error', message: 'No.' } },
    ]
    for (const body of bodies)
      for (let i = 0; i < 3; i++)
        expect(Buffer.from(encoder.encode(body, true)).equals(json(body))).toBe(true)
  })
})

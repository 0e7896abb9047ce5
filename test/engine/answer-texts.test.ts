import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAnswerTexts } from '../../mocks/engine/contract/answer-texts.ts'
import type { EngineRequest } from '../../mocks/engine/types.ts'
import { createMockPlatform } from '../../mocks/platform.ts'

const agent = (id: string, name: string) => ({
  id,
  object: 'agent',
  name,
  voice: { provider: 'azure', speed: 1, tags: ['a', 'b'] },
  metadata: {},
  optional: undefined as unknown,
})
const list = (data: unknown[], extra: Record<string, unknown> = {}) => ({
  object: 'list',
  data,
  has_more: false,
  ...extra,
})

/** Encodes three times (first listing, second, from remembered texts), each exactly as JSON.stringify. */
function expectStringifyEveryTime(texts: ReturnType<typeof createAnswerTexts>, body: () => unknown) {
  for (let i = 0; i < 3; i++) expect(texts.of(body())).toBe(JSON.stringify(body()))
}

describe('createAnswerTexts', () => {
  it.each([
    ['a list, data in the middle', () => list([agent('a', 'Ana'), agent('b', 'Bo')])],
    ['a list, data first', () => ({ data: [agent('a', 'Ana')], object: 'list', has_more: true })],
    [
      'a list, data last, undefined members',
      () => ({ object: 'list', skip: undefined, url: '/v1', data: [agent('a', 'x')] }),
    ],
    ['an empty list', () => list([])],
    ['non-ASCII text and escapes', () => list([agent('a', 'Clínica – "Recepción" \\ 😀\n')])],
    ['integer-like keys', () => list([{ id: 'a', 2: 'two', 1: 'one', b: 'b' }])],
    ['items with a toJSON', () => list([{ id: 'a', toJSON: () => ({ id: 'x' }) }])],
    [
      'items holding a date, NaN, an array with undefined',
      () => list([{ id: 'a', at: new Date(0), n: Number.NaN, xs: [undefined, 1] }]),
    ],
    ['an object', () => agent('a', 'Ana')],
    ['a list holding non-objects', () => list([1, null, 'x'])],
    ['a list of objects without ids', () => list([{ name: 'x' }, { name: 'y' }])],
    ['a list with an object member besides data', () => list([agent('a', 'Ana')], { links: { next: null } })],
  ])('encodes %s exactly as JSON.stringify, every time', (_name, body) => {
    expectStringifyEveryTime(createAnswerTexts(), body)
  })

  it('gives the very same string for the same list, so that a set of texts finds it at once', () => {
    const texts = createAnswerTexts()
    const stored = [agent('a', 'Ana'), agent('b', 'Bo')]
    const first = texts.of(list(stored.map((a) => ({ ...a }))))
    expect(texts.of(list(stored.map((a) => ({ ...a }))))).toBe(first)
  })

  type Stored = ReturnType<typeof agent> & Record<string, unknown>
  const changes: [string, (a: Stored) => void][] = [
    [
      'a nested member changed in place',
      (a) => {
        a.voice.speed = 1.5
      },
    ],
    [
      'a nested array changed in place',
      (a) => {
        a.voice.tags.push('c')
      },
    ],
    [
      'a member removed',
      (a) => {
        delete (a as Record<string, unknown>).metadata
      },
    ],
    [
      'a member added',
      (a) => {
        a.extra = true
      },
    ],
    [
      'an undefined member given a value',
      (a) => {
        a.optional = 'now'
      },
    ],
    [
      'a member set to undefined',
      (a) => {
        a.name = undefined as unknown as string
      },
    ],
    [
      'the members reordered',
      (a) => {
        const { name } = a
        delete (a as Record<string, unknown>).name
        a.name = name
      },
    ],
    [
      'a toJSON added',
      (a) => {
        a.toJSON = () => 'replaced'
      },
    ],
    [
      'a string replaced by a number',
      (a) => {
        ;(a as Record<string, unknown>).name = 1
      },
    ],
  ]
  it.each(changes)('sees %s, whoever changed it', (_name, change) => {
    const texts = createAnswerTexts()
    const stored = [agent('a', 'Ana'), agent('b', 'Bo')]
    const body = () => list(stored)
    expectStringifyEveryTime(texts, body)
    change(stored[0] as Stored)
    expectStringifyEveryTime(texts, body)
  })

  it('encodes any list of JSON items, changed at random between listings, exactly as JSON.stringify', () => {
    const item = fc.record({
      id: fc.constantFrom('a', 'b', 'c', 'd'),
      name: fc.oneof(fc.string(), fc.constant(undefined)),
      n: fc.oneof(fc.integer(), fc.double(), fc.constant(-0)),
      nested: fc.jsonValue({ maxDepth: 3 }),
    })
    fc.assert(
      fc.property(
        fc.array(fc.array(item, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
        (lists) => {
          const texts = createAnswerTexts()
          for (const data of lists) {
            const body = { object: 'list', data, has_more: data.length > 2 }
            expect(texts.of(body)).toBe(JSON.stringify(body))
            expect(texts.of(body)).toBe(JSON.stringify(body))
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe("the check of the mock's own answers (checkResponses)", () => {
  it('finds a drift in a list it found conforming before, once a listed object changed in place', async () => {
    const violations: string[] = []
    const platform = await createMockPlatform({
      checkResponses: true,
      onContractViolation: (message) => violations.push(message),
    })
    const request: EngineRequest = {
      method: 'GET',
      url: '/v1/agents',
      headers: { authorization: `Bearer ${platform.demo.secretKey}` },
      body: null,
    }
    for (let i = 0; i < 3; i++) expect((await platform.handle(request)).status).toBe(200)
    // A defect: a stored agent changed in place (records are meant to be replaced), breaking the contract.
    const [, stored] = platform.snapshot().tables.agents?.[0] ?? []
    ;(stored as { voice: { speed: unknown } }).voice.speed = 'fast'
    const response = await platform.handle(request)
    expect(response.status).toBe(500)
    expect(violations).toEqual([expect.stringMatching(/^Contract drift in listAgents \(200\): .*speed/)])
  })
})

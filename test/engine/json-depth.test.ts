import { describe, expect, it } from 'vitest'
import { ApiError } from '../../mocks/engine/api-error.ts'
import { assertJsonDepth, jsonDepth, MAX_JSON_DEPTH } from '../../mocks/engine/json-depth.ts'

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`

describe('jsonDepth', () => {
  it.each([
    ['1', 0],
    ['{}', 1],
    ['[[], {}]', 2],
    ['{"a": {"b": [1, {"c": null}]}}', 4],
    ['{"a": "[[[{{{"}', 1],
    ['{"a": "\\"[[["}', 1],
    ['{"a": "\\\\"}', 1],
    [nested(10), 10],
  ])('counts the nesting of %s as %i, brackets inside strings aside', (text, depth) => {
    expect(jsonDepth(text)).toBe(depth)
  })

  it('stops counting once past the limit', () => {
    expect(jsonDepth(nested(1000), 5)).toBe(6)
  })
})

describe('assertJsonDepth', () => {
  it(`lets bodies nested ${MAX_JSON_DEPTH} deep through, and refuses deeper ones with 400 invalid_json`, () => {
    expect(() => assertJsonDepth(null)).not.toThrow()
    expect(() => assertJsonDepth(nested(MAX_JSON_DEPTH))).not.toThrow()
    let refused: unknown
    try {
      assertJsonDepth(nested(MAX_JSON_DEPTH + 1))
    } catch (error) {
      refused = error
    }
    expect(refused).toBeInstanceOf(ApiError)
    expect((refused as ApiError).status).toBe(400)
    expect((refused as ApiError).code).toBe('invalid_json')
  })
})

import { describe, expect, it } from 'vitest'
import { ApiError } from '../../mocks/engine/api-error.ts'
import { parseAuthorization } from '../../mocks/engine/auth.ts'

/** The general reading of the header, alone (the scheme, whitespace, the token, trimmed): the model. */
function generalReading(header: string): string | undefined {
  if (header.trim() === '') return undefined
  const match = /^(\S+)(?:\s+(.*))?$/.exec(header.trim())
  if ((match?.[1] ?? '').toLowerCase() !== 'bearer') return undefined
  const token = (match?.[2] ?? '').trim()
  return token === '' ? undefined : token
}

const read = (header: string) => {
  const found = parseAuthorization(header, new URLSearchParams())
  return found instanceof ApiError ? undefined : found
}

describe('parseAuthorization', () => {
  it.each([
    ['Bearer sk-svc-abc', 'sk-svc-abc'],
    ['Bearer  sk-svc-abc', 'sk-svc-abc'],
    ['Bearer sk-svc-abc ', 'sk-svc-abc'],
    [' Bearer sk-svc-abc', 'sk-svc-abc'],
    ['Bearer\tsk-svc-abc', 'sk-svc-abc'],
    ['bearer sk-svc-abc', 'sk-svc-abc'],
    ['BEARER sk-svc-abc', 'sk-svc-abc'],
    ['Bearer sk svc', 'sk svc'],
    ['Bearer sk-svc-é', 'sk-svc-é'],
    ['Bearer ~!x', '~!x'],
    ['Bearer ', undefined],
    ['Bearer', undefined],
    ['Basic abc', undefined],
    ['Bearerabc', undefined],
    ['Bearer a\nb', undefined],
  ])('reads %j as %j', (header, want) => {
    expect(read(header)).toBe(want)
    expect(generalReading(header)).toBe(want)
  })

  it('reads every header as the general reading does, whatever its characters', () => {
    const alphabet = [
      'B',
      'e',
      'a',
      'r',
      'b',
      'E',
      'R',
      ' ',
      '\t',
      '\n',
      '\u00a0',
      '\u2028',
      '\u007f',
      '\u0000',
      'é',
      'k',
      '-',
      '~',
      '!',
    ]
    let seed = 7
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n
    }
    for (let i = 0; i < 5_000; i++) {
      const length = next(6)
      let tail = ''
      for (let j = 0; j < length; j++) tail += alphabet[next(alphabet.length)]
      const header = (next(3) === 0 ? 'Bearer' : 'Bearer ') + tail
      expect(read(header)).toBe(generalReading(header))
    }
  })
})

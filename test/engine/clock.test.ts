import { describe, expect, it } from 'vitest'
import { createClock, LATEST_CLOCK_MS } from '../../mocks/engine/clock.ts'

describe('createClock().advance', () => {
  const realNow = () => Date.UTC(2026, 10, 23)

  it('moves up to 9998-12-31T23:59:59Z and no further', () => {
    const clock = createClock({ realNow })
    const room = clock.maxAdvanceSeconds()
    expect(room).toBe((LATEST_CLOCK_MS - realNow()) / 1000)
    expect(() => clock.advance(room + 1)).toThrow(RangeError)
    expect(clock.offsetSeconds()).toBe(0)
    clock.advance(room)
    expect(clock.iso()).toBe('9998-12-31T23:59:59Z')
    expect(clock.maxAdvanceSeconds()).toBe(0)
    expect(() => clock.advance(1)).toThrow(/9998-12-31T23:59:59Z/)
  })

  it.each([Number.NaN, Number.POSITIVE_INFINITY, -1])('refuses %s seconds', (seconds) => {
    expect(() => createClock({ realNow }).advance(seconds)).toThrow(RangeError)
  })
})

import { offsetControl } from './clock-control.ts'

/** The one clock that every time-based rule of the engine reads: windows, expiry, timestamps. */
export interface Clock {
  /** Milliseconds since the epoch, real time plus the offset. */
  now(): number
  /** ISO 8601 UTC timestamp of `now()` in whole seconds, with `Z` (the contract's `Timestamp`). */
  iso(): string
  /** Moves the clock forward; it never moves back, nor past `LATEST_CLOCK_MS` (a RangeError). */
  advance(seconds: number): void
  /** How many seconds the clock may still be moved forward before it reaches `LATEST_CLOCK_MS`. */
  maxAdvanceSeconds(): number
  /** Seconds the clock runs ahead of real time. */
  offsetSeconds(): number
  /** Back to real time (the control plane's reset). */
  reset(): void
  /** Sets the offset (a saved or replicated clock). */
  setOffsetSeconds(seconds: number): void
}

export interface ClockOptions {
  /** Source of real time, `Date.now` by default. */
  realNow?: () => number
  /** Starting offset in seconds, for restoring a saved clock. */
  offsetSeconds?: number
}

/**
 * The latest instant the clock may be moved to, 9998-12-31T23:59:59Z: every timestamp derived from
 * it (a key's rotation 90 days on, an analytics bucket's end) then stays in the years ISO 8601 writes
 * with four digits, with a year to spare for real time to run on.
 */
export const LATEST_CLOCK_MS = Date.UTC(9998, 11, 31, 23, 59, 59)

/** Creates a clock that follows real time and can be moved forward by the control plane. */
export function createClock({ realNow = Date.now, offsetSeconds = 0 }: ClockOptions = {}): Clock {
  let offsetMs = 0
  const now = () => realNow() + offsetMs
  const control = offsetControl(
    (ms) => {
      offsetMs = ms
    },
    now,
    LATEST_CLOCK_MS,
  )
  control.setOffsetSeconds(offsetSeconds)
  return {
    now,
    iso: () => toTimestamp(now()),
    advance(seconds) {
      if (!Number.isFinite(seconds) || seconds < 0)
        throw new RangeError('seconds must be a finite number >= 0')
      if (now() + seconds * 1000 > LATEST_CLOCK_MS)
        throw new RangeError('the clock cannot be moved past 9998-12-31T23:59:59Z')
      offsetMs += seconds * 1000
    },
    // Kept here: the ticker reads it after every step (real time is the mock clock less its offset).
    offsetSeconds: () => offsetMs / 1000,
    ...control,
  }
}

let lastSecond = Number.NaN
let lastTimestamp = ''

/** ISO 8601 UTC in whole seconds with `Z`, e.g. `2026-03-09T14:02:11Z`. */
export function toTimestamp(ms: number): string {
  const second = Math.floor(ms / 1000)
  // Every request stamps "now" two or three times; within one second the text is the same.
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a cache: formatting the same second again gives the same text
  if (second !== lastSecond) {
    lastTimestamp = new Date(second * 1000).toISOString().replace('.000Z', 'Z')
    lastSecond = second
  }
  return lastTimestamp
}

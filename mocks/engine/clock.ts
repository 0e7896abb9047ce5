/** The one clock that every time-based rule of the engine reads: windows, expiry, timestamps. */
export interface Clock {
  /** Milliseconds since the epoch, real time plus the offset. */
  now(): number
  /** ISO 8601 UTC timestamp of `now()` in whole seconds, with `Z` (the contract's `Timestamp`). */
  iso(): string
  /** Moves the clock forward; it never moves back. */
  advance(seconds: number): void
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

/** Creates a clock that follows real time and can be moved forward by the control plane. */
export function createClock({ realNow = Date.now, offsetSeconds = 0 }: ClockOptions = {}): Clock {
  let offsetMs = offsetSeconds * 1000
  const now = () => realNow() + offsetMs
  return {
    now,
    iso: () => toTimestamp(now()),
    advance(seconds) {
      if (!Number.isFinite(seconds) || seconds < 0)
        throw new RangeError('seconds must be a finite number >= 0')
      offsetMs += seconds * 1000
    },
    offsetSeconds: () => offsetMs / 1000,
    reset() {
      offsetMs = 0
    },
    setOffsetSeconds(seconds) {
      offsetMs = seconds * 1000
    },
  }
}

let lastSecond = Number.NaN
let lastTimestamp = ''

/** ISO 8601 UTC in whole seconds with `Z`, e.g. `2026-03-09T14:02:11Z`. */
export function toTimestamp(ms: number): string {
  const second = Math.floor(ms / 1000)
  // Every request stamps "now" two or three times; within one second the text is the same.
  if (second !== lastSecond) {
    lastTimestamp = new Date(second * 1000).toISOString().replace('.000Z', 'Z')
    lastSecond = second
  }
  return lastTimestamp
}

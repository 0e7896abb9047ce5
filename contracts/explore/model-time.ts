/** Milliseconds into a second at which the model's steps start (then a microsecond later each). */
const PHASE_MS = 100
const STEP_MS = 0.001

/**
 * The model's clock, driven by the target's: never by the client's idea of time. The target's clock is read
 * to the second (`GET /_mock/clock`, and every clock move's answer) after each step; a step the target handled
 * between two readings of the same second ran in that second, and the model runs it in that second too. Within
 * a second the model's steps keep their order (a microsecond apart), and the count restarts when the target's
 * clock passes a second on its own (real time), as the target's own sub-second position does: so that an
 * expiry or a window that ends within a second falls on the same side of a step on both.
 */
export class ModelTime {
  /** The target's second at the last reading. */
  private reading = Number.NaN
  /** Seconds the clock was moved since that reading. */
  private moved = 0
  private second = Number.NaN
  /** The second of the step before the last one (a step run again may not go back past it). */
  private before = Number.NaN
  private count = 0

  constructor(private readonly set: (ms: number) => void) {}

  /** The target's clock read `iso` (to the second). */
  read(iso: string): number {
    const second = Math.floor(Date.parse(iso) / 1000)
    if (Number.isNaN(second)) throw new Error(`the target's clock reads '${iso}', not an instant`)
    // More seconds than the moves account for: real time passed a second on the target.
    if (!Number.isNaN(this.reading) && second > this.reading + this.moved) this.count = 0
    this.reading = second
    this.moved = 0
    return second
  }

  /** An answer told that the target handled it in `second` (its rate-limit fields: now + t). */
  saw(second: number): void {
    if (!Number.isNaN(this.reading) && second > this.reading + this.moved) this.count = 0
    this.reading = Number.isNaN(this.reading) ? second : Math.max(this.reading, second)
    this.moved = 0
  }

  /** The clock was moved `seconds` (the reading that follows accounts for them). */
  advanced(seconds: number): void {
    this.moved += seconds
  }

  /** The last second read. */
  current(): number {
    return this.reading
  }

  /** Sets the model's clock for a step the target handled in `second` (never earlier than the last step). */
  step(second: number): void {
    this.before = this.second
    const at = Number.isNaN(this.second) ? second : Math.max(second, this.second)
    this.second = at
    this.count++
    this.set(at * 1000 + PHASE_MS + this.count * STEP_MS)
  }

  /** Where the model's steps stand now: `back()` returns there (requests sent at once, run again in another order). */
  mark(): { back(): void } {
    const { second, before, count } = this
    return {
      back: () => {
        this.second = second
        this.before = before
        this.count = count
      },
    }
  }

  /** Sets the clock for the last step run again in another `second` (its state was undone). */
  again(second: number): void {
    const at = Number.isNaN(this.before) ? second : Math.max(second, this.before)
    this.second = at
    this.count++
    this.set(at * 1000 + PHASE_MS + this.count * STEP_MS)
  }
}

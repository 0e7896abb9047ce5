/** The longest window any plan has (hourly): buckets older than this are dropped. */
export const LONGEST_WINDOW_SECONDS = 3600

/**
 * The admitted requests of one account, counted in whole-second buckets, oldest first: memory stays bounded by
 * the longest window (3600 buckets), whatever the traffic. Every window (hourly, burst) reads the same buckets:
 * a request made during second `s` counts in a window of `w` seconds until `s + w`.
 */
export class RequestBuckets {
  private seconds: number[] = []
  private counts: number[] = []
  private head = 0
  /** Requests in the live buckets (`head` onwards). */
  private total = 0

  /** Drops buckets that have left the longest window at `nowSec`. */
  evict(nowSec: number): void {
    while (
      this.head < this.seconds.length &&
      (this.seconds[this.head] as number) + LONGEST_WINDOW_SECONDS <= nowSec
    ) {
      this.total -= this.counts[this.head] as number
      this.head++
    }
    if (this.head > 64 && this.head * 2 > this.seconds.length) {
      this.seconds = this.seconds.slice(this.head)
      this.counts = this.counts.slice(this.head)
      this.head = 0
    }
  }

  /** Counts one request in second `nowSec`; returns that second's new count. */
  add(nowSec: number): number {
    const last = this.seconds.length - 1
    if (last >= this.head && this.seconds[last] === nowSec) {
      this.total++
      this.counts[last] = (this.counts[last] as number) + 1
      return this.counts[last] as number
    }
    return this.set(nowSec, 1)
  }

  /** Sets the count of a second (0 removes it): a change made elsewhere, applied here. Returns the count. */
  set(second: number, count: number): number {
    let i = this.seconds.length
    while (i > this.head && (this.seconds[i - 1] as number) > second) i--
    if (i > this.head && this.seconds[i - 1] === second) {
      this.total += count - (this.counts[i - 1] as number)
      if (count > 0) this.counts[i - 1] = count
      else {
        this.seconds.splice(i - 1, 1)
        this.counts.splice(i - 1, 1)
      }
      return count
    }
    if (count <= 0) return 0
    this.seconds.splice(i, 0, second)
    this.counts.splice(i, 0, count)
    this.total += count
    return count
  }

  /** Requests counted in the last `windowSeconds` before `nowSec` (after `evict(nowSec)`). */
  used(windowSeconds: number, nowSec: number): number {
    if (windowSeconds >= LONGEST_WINDOW_SECONDS) return this.total
    let used = 0
    for (let i = this.seconds.length - 1; i >= this.head; i--) {
      if ((this.seconds[i] as number) + windowSeconds <= nowSec) break
      used += this.counts[i] as number
    }
    return used
  }

  /** Whole seconds from `nowMs` until the oldest request counted in the window leaves it (0 if none). */
  resetSeconds(windowSeconds: number, nowMs: number): number {
    const nowSec = Math.floor(nowMs / 1000)
    let oldest: number | undefined =
      windowSeconds >= LONGEST_WINDOW_SECONDS ? this.seconds[this.head] : undefined
    for (let i = this.seconds.length - 1; oldest === undefined && i >= this.head; i--) {
      const second = this.seconds[i] as number
      if (second + windowSeconds <= nowSec) break
      if (i === this.head || (this.seconds[i - 1] as number) + windowSeconds <= nowSec) oldest = second
    }
    if (oldest === undefined) return 0
    return Math.max(0, Math.ceil(((oldest + windowSeconds) * 1000 - nowMs) / 1000))
  }

  /** The live buckets, oldest first, as `[second, count]`. */
  *entries(): IterableIterator<[number, number]> {
    for (let i = this.head; i < this.seconds.length; i++)
      yield [this.seconds[i] as number, this.counts[i] as number]
  }
}

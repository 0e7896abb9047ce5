import type { CountedRequest, StateStore } from './store.ts'

/** What the rate limiter reads of an account's windows: `RequestBuckets` in one process, or a shared count. */
export interface WindowCounts {
  evict(nowSec: number): void
  used(windowSeconds: number, nowSec: number): number
  resetSeconds(windowSeconds: number, nowMs: number): number
  /** Counts the request; returns its second's count. */
  add(nowSec: number): number
}

/**
 * The windows of a request that a shared store counted before the step ran (`CountedRequest`): what the
 * windows held before it, and, once `add` is called, the request itself, in the second the store counted it.
 */
export class CountedWindows implements WindowCounts {
  private added = false

  constructor(private readonly counted: CountedRequest) {}

  private window(seconds: number) {
    return this.counted.windows.find((window) => window.seconds === seconds)
  }

  evict(): void {}

  used(windowSeconds: number): number {
    return (this.window(windowSeconds)?.used ?? 0) + (this.added ? 1 : 0)
  }

  resetSeconds(windowSeconds: number, nowMs: number): number {
    const oldest = this.window(windowSeconds)?.oldest ?? (this.added ? this.counted.second : null)
    if (oldest === null) return 0
    return Math.max(0, Math.ceil(((oldest + windowSeconds) * 1000 - nowMs) / 1000))
  }

  add(): number {
    this.added = true
    return this.counted.count
  }
}

/** What a shared store counted for the running step's request, for the rate limiter; undefined in one process. */
export function storeCounts(
  store: StateStore,
): ((accountId: string) => CountedRequest | undefined) | undefined {
  return store.counted && ((accountId) => store.counted?.(accountId))
}

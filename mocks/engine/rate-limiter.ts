/** One window of a plan's limits: `hourly` (3600 s) or `burst` (60 s). */
export interface WindowLimit {
  policy: 'hourly' | 'burst'
  quota: number
  seconds: number
}

/** What one window says about a request, after it was counted (or refused). */
export interface WindowState {
  policy: WindowLimit['policy']
  quota: number
  seconds: number
  /** Requests that may still be admitted. */
  remaining: number
  /** Whole seconds until the oldest request counted in the window leaves it (0 if none). */
  reset: number
}

export type RateDecision =
  | { admitted: true; windows: WindowState[] }
  | { admitted: false; windows: WindowState[]; policy: WindowLimit['policy']; retryAfter: number }

/**
 * A sliding-log window counted in whole-second buckets: memory stays bounded by the window's length
 * in seconds, whatever the traffic. A request made during second `s` counts until `s + w`.
 */
class SlidingWindow {
  private seconds: number[] = []
  private counts: number[] = []
  private head = 0
  private total = 0

  constructor(readonly windowSeconds: number) {}

  /** Drops buckets that have left the window at `nowSec`. */
  evict(nowSec: number): void {
    while (this.head < this.seconds.length && (this.seconds[this.head] ?? 0) + this.windowSeconds <= nowSec) {
      this.total -= this.counts[this.head] ?? 0
      this.head++
    }
    if (this.head > 64 && this.head * 2 > this.seconds.length) {
      this.seconds = this.seconds.slice(this.head)
      this.counts = this.counts.slice(this.head)
      this.head = 0
    }
  }

  used(): number {
    return this.total
  }

  add(nowSec: number): void {
    const last = this.seconds.length - 1
    if (last >= this.head && this.seconds[last] === nowSec) this.counts[last] = (this.counts[last] ?? 0) + 1
    else {
      this.seconds.push(nowSec)
      this.counts.push(1)
    }
    this.total++
  }

  /** Seconds until the oldest counted request leaves, measured from `nowMs`. */
  resetSeconds(nowMs: number): number {
    if (this.head >= this.seconds.length) return 0
    const leavesAtMs = ((this.seconds[this.head] ?? 0) + this.windowSeconds) * 1000
    return Math.max(0, Math.ceil((leavesAtMs - nowMs) / 1000))
  }
}

/**
 * Per-account rate limiting over two sliding windows (decisions.md section 6).
 * `check` is synchronous, so in a single-threaded runtime exactly `quota` of any burst are admitted.
 */
export function createRateLimiter() {
  const accounts = new Map<string, Map<string, SlidingWindow>>()

  function windowsOf(accountId: string, limits: readonly WindowLimit[]): SlidingWindow[] {
    let windows = accounts.get(accountId)
    if (!windows) {
      windows = new Map()
      accounts.set(accountId, windows)
    }
    return limits.map((limit) => {
      const key = `${limit.policy}:${limit.seconds}`
      let window = windows.get(key)
      if (!window) {
        window = new SlidingWindow(limit.seconds)
        windows.set(key, window)
      }
      return window
    })
  }

  function states(limits: readonly WindowLimit[], windows: SlidingWindow[], nowMs: number): WindowState[] {
    return limits.map((limit, i) => {
      const window = windows[i] as SlidingWindow
      return {
        policy: limit.policy,
        quota: limit.quota,
        seconds: limit.seconds,
        remaining: Math.max(0, limit.quota - window.used()),
        reset: window.resetSeconds(nowMs),
      }
    })
  }

  return {
    /** Admits and counts the request in every window, or refuses it without counting it. */
    check(accountId: string, limits: readonly WindowLimit[], nowMs: number): RateDecision {
      const nowSec = Math.floor(nowMs / 1000)
      const windows = windowsOf(accountId, limits)
      for (const window of windows) window.evict(nowSec)
      const exhausted = limits.filter((limit, i) => (windows[i] as SlidingWindow).used() >= limit.quota)
      if (exhausted.length > 0) {
        const windowStates = states(limits, windows, nowMs)
        let policy = exhausted[0]?.policy ?? 'burst'
        let retryAfter = 0
        for (const state of windowStates) {
          if (exhausted.some((limit) => limit.policy === state.policy) && state.reset >= retryAfter) {
            retryAfter = state.reset
            policy = state.policy
          }
        }
        return { admitted: false, windows: windowStates, policy, retryAfter: Math.max(1, retryAfter) }
      }
      for (const window of windows) window.add(nowSec)
      return { admitted: true, windows: states(limits, windows, nowMs) }
    },

    /** The windows' state without counting anything (for the control plane's usage view). */
    peek(accountId: string, limits: readonly WindowLimit[], nowMs: number): WindowState[] {
      const windows = windowsOf(accountId, limits)
      for (const window of windows) window.evict(Math.floor(nowMs / 1000))
      return states(limits, windows, nowMs)
    },

    reset(accountId?: string): void {
      if (accountId) accounts.delete(accountId)
      else accounts.clear()
    },
  }
}

export type RateLimiter = ReturnType<typeof createRateLimiter>

/** `RateLimit-Policy`, `RateLimit` and `X-RateLimit-*` headers (draft-ietf-httpapi-ratelimit-headers-10). */
export function rateLimitHeaders(windows: readonly WindowState[], nowMs: number): Record<string, string> {
  const policy = windows.map((w) => `"${w.policy}";q=${w.quota};w=${w.seconds}`).join(', ')
  const current = windows.map((w) => `"${w.policy}";r=${w.remaining};t=${w.reset}`).join(', ')
  let tightest = windows[0]
  for (const window of windows) {
    if (
      tightest &&
      (window.remaining < tightest.remaining ||
        (window.remaining === tightest.remaining && window.seconds < tightest.seconds))
    )
      tightest = window
  }
  const headers: Record<string, string> = { 'ratelimit-policy': policy, ratelimit: current }
  if (tightest) {
    headers['x-ratelimit-limit'] = String(tightest.quota)
    headers['x-ratelimit-remaining'] = String(tightest.remaining)
    headers['x-ratelimit-reset'] = String(Math.floor(nowMs / 1000) + tightest.reset)
  }
  return headers
}

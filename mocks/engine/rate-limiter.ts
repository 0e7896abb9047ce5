import type { Clock } from './clock.ts'
import { rateLimitControl } from './rate-limit-control.ts'
import { WINDOWS_TABLE, windowsTable } from './rate-limit-table.ts'
import type { WindowLimit, WindowState } from './rate-limit-types.ts'
import { RequestBuckets } from './request-buckets.ts'
import { CountedWindows, type WindowCounts } from './state/counted-windows.ts'
import type { EngineState } from './state/state.ts'
import type { CountedRequest } from './state/store.ts'

export type { WindowLimit, WindowState } from './rate-limit-types.ts'

export type RateDecision =
  | { admitted: true; windows: WindowState[] }
  | { admitted: false; windows: WindowState[]; policy: WindowLimit['policy']; retryAfter: number }

/**
 * Per-account rate limiting over two sliding windows (docs/decisions/006-rate-limits.md), over one series of
 * whole-second buckets per account (a table of the engine's state: soft changes, saved a moment late).
 * `check` is synchronous, so in a single-threaded runtime exactly `quota` of any burst are admitted. A shared
 * store counts each request across processes before its step runs (`counted`): `check` then answers from that.
 */
export function createRateLimiter(
  state: EngineState,
  clock: Clock,
  counted?: (accountId: string) => CountedRequest | undefined,
) {
  const accounts = new Map<string, RequestBuckets>()

  function bucketsOf(accountId: string): RequestBuckets {
    let buckets = accounts.get(accountId)
    if (!buckets) {
      buckets = new RequestBuckets()
      accounts.set(accountId, buckets)
    }
    return buckets
  }

  function states(limits: readonly WindowLimit[], buckets: WindowCounts, nowMs: number): WindowState[] {
    const nowSec = Math.floor(nowMs / 1000)
    return limits.map((limit) => ({
      policy: limit.policy,
      quota: limit.quota,
      seconds: limit.seconds,
      remaining: Math.max(0, limit.quota - buckets.used(limit.seconds, nowSec)),
      reset: buckets.resetSeconds(limit.seconds, nowMs),
    }))
  }

  state.register(WINDOWS_TABLE, windowsTable(accounts, bucketsOf, clock))

  return {
    /** Admits and counts the request in every window, or refuses it without counting it. */
    check(accountId: string, limits: readonly WindowLimit[], nowMs: number): RateDecision {
      const nowSec = Math.floor(nowMs / 1000)
      const shared = counted?.(accountId)
      const buckets: WindowCounts = shared ? new CountedWindows(shared) : bucketsOf(accountId)
      buckets.evict(nowSec)
      const exhausted = limits.filter((limit) => buckets.used(limit.seconds, nowSec) >= limit.quota)
      if (exhausted.length > 0) {
        const windowStates = states(limits, buckets, nowMs)
        // Stryker disable next-line OptionalChaining,LogicalOperator,StringLiteral: always overwritten by the loop below (an exhausted window has a reset of 0 or more)
        let policy = exhausted[0]?.policy ?? 'burst'
        let retryAfter = 0
        for (const window of windowStates) {
          const longest = window.reset >= retryAfter
          if (exhausted.some((limit) => limit.policy === window.policy) && longest) {
            retryAfter = window.reset
            policy = window.policy
          }
        }
        return { admitted: false, windows: windowStates, policy, retryAfter: Math.max(1, retryAfter) }
      }
      const count = buckets.add(nowSec)
      // Counted by the store: this process's buckets follow it, for the usage view.
      if (shared) {
        bucketsOf(accountId).set(shared.second, count)
        return { admitted: true, windows: states(limits, buckets, nowMs) }
      }
      state.record(WINDOWS_TABLE, `${accountId}/${nowSec}`, count, count - 1 || null, true)
      return { admitted: true, windows: states(limits, buckets, nowMs) }
    },

    // The control plane's usage view and an account's deletion.
    ...rateLimitControl({ state, accounts, bucketsOf, states }),
  }
}

export type RateLimiter = ReturnType<typeof createRateLimiter>

/** `RateLimit-Policy`, `RateLimit` and `X-RateLimit-*` headers (draft-ietf-httpapi-ratelimit-headers-10). */
export function rateLimitHeaders(windows: readonly WindowState[], nowMs: number): Record<string, string> {
  let policy = ''
  let current = ''
  let tightest = windows[0]
  for (const window of windows) {
    const separator = current === '' ? '' : ', '
    policy += `${separator}"${window.policy}";q=${window.quota};w=${window.seconds}`
    current += `${separator}"${window.policy}";r=${window.remaining};t=${window.reset}`
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

import { WINDOWS_TABLE } from './rate-limit-table.ts'
import type { WindowLimit, WindowState } from './rate-limit-types.ts'
import type { RequestBuckets } from './request-buckets.ts'
import type { WindowCounts } from './state/counted-windows.ts'
import type { EngineState } from './state/state.ts'

export interface RateLimitParts {
  state: EngineState
  accounts: Map<string, RequestBuckets>
  bucketsOf(accountId: string): RequestBuckets
  states(limits: readonly WindowLimit[], buckets: WindowCounts, nowMs: number): WindowState[]
}

/** What the control plane asks of the rate limiter: an account's usage without counting, and its deletion. */
export function rateLimitControl({ state, accounts, bucketsOf, states }: RateLimitParts) {
  return {
    /** The windows' state without counting anything (for the control plane's usage view). */
    peek(accountId: string, limits: readonly WindowLimit[], nowMs: number): WindowState[] {
      const buckets = bucketsOf(accountId)
      buckets.evict(Math.floor(nowMs / 1000))
      return states(limits, buckets, nowMs)
    },

    /** Forgets an account's counted requests (the account is deleted), recorded as changes. */
    forget(accountId: string): void {
      const buckets = accounts.get(accountId)
      if (!buckets) return
      for (const [second, count] of buckets.entries())
        state.record(WINDOWS_TABLE, `${accountId}/${second}`, null, count, true)
      accounts.delete(accountId)
    },
  }
}

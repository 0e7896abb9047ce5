import type { Clock } from './clock.ts'
import type { RequestBuckets } from './request-buckets.ts'
import type { Table } from './state/state.ts'

/** The state table of the rate-limit windows: requests per second, keyed `<account id>/<epoch second>`. */
export const WINDOWS_TABLE = 'windows'

/**
 * The rate-limit windows as a table of the engine's state (`<account id>/<epoch second>`: the requests counted
 * in that second): changes made elsewhere set a second's count, a snapshot lists the seconds still in a window,
 * a reset forgets them all; a record is its account's.
 */
export function windowsTable(
  accounts: Map<string, RequestBuckets>,
  bucketsOf: (accountId: string) => RequestBuckets,
  clock: Clock,
): Table {
  return {
    apply(key, value) {
      const slash = key.indexOf('/')
      bucketsOf(key.slice(0, slash)).set(Number(key.slice(slash + 1)), (value as number | null) ?? 0)
    },
    *entries() {
      const nowSec = Math.floor(clock.now() / 1000)
      for (const [accountId, buckets] of accounts) {
        buckets.evict(nowSec)
        for (const [second, count] of buckets.entries()) yield [`${accountId}/${second}`, count]
      }
    },
    clear: () => accounts.clear(),
    account: (key) => key.slice(0, key.indexOf('/')),
  }
}

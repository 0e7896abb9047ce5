import type { Exchange } from '../http/exchange.ts'
import { type RateLimitView, readRateLimitHeaders } from '../http/rate-limit-headers.ts'
import { ensure, fail } from './failure.ts'

/** Both rate-limit fields of an answer, parsed; a failure when they are not in the IETF syntax. */
export function view(exchange: Exchange): RateLimitView {
  const parsed = readRateLimitHeaders(exchange.response.headers)
  if (!parsed.ok) fail('rate-limit headers in the IETF syntax', parsed.error, exchange)
  return parsed.value
}

/**
 * Fails unless the answers to `exchanges` (sent together, answered in any order) show `window`'s `r` counting
 * each request once: `highest`, `highest - 1`, ... down to `highest - count + 1`, each value once.
 */
export function expectCountedOnce(
  exchanges: readonly Exchange[],
  window: string,
  highest: number,
  why: string,
): void {
  const seen = exchanges.map((exchange) => view(exchange).remaining(window))
  const want = exchanges.map((_, i) => highest - i)
  const sorted = [...seen].sort((a, b) => (b ?? -1) - (a ?? -1))
  const at = sorted.findIndex((r, i) => r !== want[i])
  if (at === -1) return
  const culprit = exchanges[seen.indexOf(sorted[at])] ?? exchanges[0]
  ensure(
    false,
    `RateLimit "${window}";r from ${highest} down to ${highest - exchanges.length + 1}, each value once, ${why}`,
    `r=${sorted.join(',')}`,
    culprit,
  )
}

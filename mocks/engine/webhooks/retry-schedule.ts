/** Mock-clock delays before the retries of a failed delivery (docs/decisions/013-calls-and-webhooks.md): 5 s, 30 s, 2 min, 10 min, 1 h. */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 3_600_000]

/** Real milliseconds a receiver has to answer an attempt before it counts as failed. */
export const ATTEMPT_TIMEOUT_MS = 10_000

/**
 * Real milliseconds a process's claim on an attempt lasts: past it (the process died mid-attempt), another
 * process may make the attempt. Longer than the timeout, so that a live process always finishes first.
 */
export const CLAIM_LEASE_MS = 30_000

/** Deliveries kept per account (the newest; finished ones are dropped first). */
export const MAX_DELIVERIES_PER_ACCOUNT = 1000

/**
 * When the next attempt is due after the `failures`-th failed attempt in a row (epoch ms, mock clock), or
 * undefined when the delivery has run out of retries.
 */
export function nextAttemptAt(failedAt: number, failures: number): number | undefined {
  const delay = RETRY_DELAYS_MS[failures - 1]
  return delay === undefined ? undefined : failedAt + delay
}

/** Thrown when the request budget of the run is spent; the check is then skipped, not failed. */
export class BudgetExhausted extends Error {}

/** Thrown when the target asks to wait longer than the run may (`Retry-After` over `--max-wait`). */
export class RetryTooLong extends Error {
  constructor(
    /** What would have to be waited for, and how long: `the target answered 429 with Retry-After 300`. */
    readonly reason: string,
    readonly maxWaitSeconds: number,
  ) {
    super(`${reason}, longer than --max-wait ${maxWaitSeconds} s`)
  }
}

/** The target could not be reached at all (connection refused, DNS, TLS, reset): no HTTP answer. */
export class TargetUnreachable extends Error {
  constructor(
    readonly url: string,
    readonly error: unknown,
  ) {
    super(`no answer from ${url}: ${describeNetworkError(error)}`)
    this.name = 'TargetUnreachable'
  }
}

/** `ECONNREFUSED (connection refused)`, or the error's own message. */
export function describeNetworkError(error: unknown): string {
  const code =
    (error as { code?: unknown; cause?: { code?: unknown } } | undefined)?.code ??
    (error as { cause?: { code?: unknown } } | undefined)?.cause?.code
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host not found (DNS)',
    ECONNRESET: 'connection reset',
    // The target closed the connection while the request's body was still going out: a client that
    // uploads (a body over the limit, a slow link) never reads an answer sent before it finished.
    EPIPE: 'the target closed the connection while the body was still being sent, without a lingering close',
    ETIMEDOUT: 'timed out',
    EHOSTUNREACH: 'host unreachable',
    CERT_HAS_EXPIRED: 'TLS certificate expired',
    DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
  }
  if (typeof code === 'string') return known[code] ? `${code} (${known[code]})` : code
  return error instanceof Error ? error.message : String(error)
}

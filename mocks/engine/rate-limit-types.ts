/** The windows of a plan's limits and what each says about a request: shared by the rate limiter and its control-plane side. */

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

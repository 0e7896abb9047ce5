import { RetryTooLong } from './errors.ts'
import { parseRateLimit, parseRateLimitPolicy } from './rate-limit-headers.ts'

/** A wait of the run, announced before it starts. */
export interface WaitEvent {
  /** How long the run waits, in seconds. */
  seconds: number
  /** What it waits for: `the burst window (50 requests per 60 s) to free up`. */
  reason: string
  /** The request that waits, e.g. `GET /call-logs?limit=100`, when a request waits. */
  request?: string
}

export interface PacerOptions {
  /** Longest single wait the run accepts, in seconds (`--max-wait`). */
  maxWaitSeconds: number
  now?: () => number
  sleep?: (ms: number) => Promise<void>
  /** Told about every wait before it starts (the command prints a progress line). */
  onWait?: (event: WaitEvent) => void
}

interface WindowState {
  quota?: number
  seconds?: number
  remaining: number
  /** When the oldest request counted in the window leaves it (ms, the run's clock). */
  freeAt: number
}

/** Room for timer imprecision after a window's `t` seconds. */
const MARGIN_MS = 50

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Keeps the run within the account's advertised rate limit. Every answer's `RateLimit` (`r`, `t` per window)
 * and `RateLimit-Policy` (`q`, `w`) are read; before a request that counts against the account, the pacer
 * waits until every window has room, so a well-behaved target never has to answer 429. Every wait is
 * announced (what for, how long) and added up for the summary.
 */
export function createPacer(options: PacerOptions) {
  const now = options.now ?? Date.now
  const sleep = options.sleep ?? defaultSleep
  const windows = new Map<string, WindowState>()
  let waitedMs = 0
  let waits = 0
  let whenUsedUp: (() => Promise<void>) | undefined

  async function wait(ms: number, reason: string, request?: string): Promise<void> {
    if (ms <= 0) return
    options.onWait?.({ seconds: Math.max(1, Math.round(ms / 1000)), reason, request })
    waits++
    waitedMs += ms
    await sleep(ms)
  }

  return {
    /** Reads the rate-limit fields of an answer (silently ignores fields it cannot parse). */
    observe(headers: Record<string, string>): void {
      const at = now()
      const states = headers.ratelimit === undefined ? undefined : parseRateLimit(headers.ratelimit)
      if (!states?.ok) return
      const policies = headers['ratelimit-policy']
        ? parseRateLimitPolicy(headers['ratelimit-policy'])
        : undefined
      for (const state of states.value) {
        const policy = policies?.ok ? policies.value.find((p) => p.name === state.name) : undefined
        windows.set(state.name, {
          quota: policy?.quota,
          seconds: policy?.window,
          remaining: state.remaining,
          freeAt: at + state.reset * 1000 + MARGIN_MS,
        })
      }
    },

    /**
     * Waits until every window of the account has room for one more request (`request` names it). When a
     * window is used up and an action is waiting for that moment (`onceUsedUp`), the action runs first.
     */
    async ready(request: string): Promise<void> {
      let at = now()
      const usedUp = () => [...windows].filter(([, w]) => w.remaining <= 0 && w.freeAt > at)
      let full = usedUp()
      if (full.length === 0) return
      const action = whenUsedUp
      if (action) {
        whenUsedUp = undefined
        await action()
        at = now()
        full = usedUp()
        if (full.length === 0) return
      }
      const [name, longest] = full.reduce((a, b) => (b[1].freeAt > a[1].freeAt ? b : a))
      const seconds = (longest.freeAt - MARGIN_MS - at) / 1000
      const what =
        longest.quota !== undefined && longest.seconds !== undefined
          ? `the ${name} window (${longest.quota} requests per ${longest.seconds} s)`
          : `the ${name} window`
      if (seconds > options.maxWaitSeconds)
        throw new RetryTooLong(
          `${what} is used up for another ${Math.ceil(seconds)} s`,
          options.maxWaitSeconds,
        )
      await wait(longest.freeAt - at, `${what} to free up`, request)
      for (const [, state] of full) {
        state.remaining = 1
        state.freeAt = 0
      }
    },

    /** Waits `ms` for a stated reason (a `Retry-After`, a check that lets a window pass). */
    wait,

    /**
     * Runs `action` once, the next time a request has to wait for a used-up window, before the wait: while a
     * window is used up the target refuses every request with a 429, which no window counts
     * (docs/decisions/006-rate-limits.md). A later call replaces an action that has not run yet.
     */
    onceUsedUp(action: () => Promise<void>): void {
      whenUsedUp = action
    },

    /** Waits so far: how many, and their total in ms. */
    stats: () => ({ waits, waitedMs }),

    /** The windows as last seen: `{ name, quota, seconds, remaining }`. */
    windows: () =>
      [...windows].map(([name, w]) => ({ name, quota: w.quota, seconds: w.seconds, remaining: w.remaining })),
  }
}

export type Pacer = ReturnType<typeof createPacer>

/** What the ticker drives: the platform's schedule and its clock. */
export interface Tickable {
  /** Runs what fell due on the mock clock, as one step. */
  tick(): Promise<void>
  /** When the next thing falls due (epoch ms, mock clock), or undefined. */
  nextDueAt(): number | undefined
  /** Calls the watcher after every step; returns how to stop. */
  watch(watcher: () => void): () => void
  clock: { now(): number }
}

export interface TickerOptions {
  /**
   * Also tick every this many ms when nothing is known to be due (a store shared with other processes, whose
   * calls this process learns of only at its next step). Default: only while something is scheduled.
   */
  pollMs?: number
  /** Longest wait between two ticks while something is scheduled (another process may move the clock). 1 s. */
  maxDelayMs?: number
  /** Runs after each tick (the Node deliverer claims the attempts due). */
  afterTick?: () => Promise<void> | void
  /** Told of a tick that failed (the store unavailable); the ticker goes on. */
  onError?: (error: unknown) => void
}

/**
 * Drives the engine in real time: the engine has no timers, so an adapter (the node:http server, MSW's
 * `createMockApi`, the browser worker) runs `tick()` when the next transition falls due, at least once a second
 * while anything is scheduled, and never while nothing is. The timer does not keep Node alive.
 */
export function startTicker(target: Tickable, options: TickerOptions = {}) {
  const maxDelay = options.maxDelayMs ?? 1000
  let timer: ReturnType<typeof setTimeout> | undefined
  let timerAt = 0
  let running = false
  let stopped = false
  /** The last tick left something due unprocessed (nothing can take it now): wait the longest delay. */
  let stuck = false

  function clear(): void {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  }

  function arm(): void {
    if (stopped || running) return
    const due = target.nextDueAt()
    let delay: number
    if (due !== undefined)
      delay = stuck ? maxDelay : Math.min(maxDelay, Math.max(0, due - target.clock.now()))
    else if (options.pollMs !== undefined) delay = options.pollMs
    else {
      clear()
      return
    }
    const fireAt = Date.now() + delay
    if (timer !== undefined && timerAt <= fireAt) return
    clear()
    timerAt = fireAt
    timer = setTimeout(fire, delay)
    ;(timer as { unref?: () => void }).unref?.()
  }

  async function fire(): Promise<void> {
    timer = undefined
    running = true
    try {
      await target.tick()
      await options.afterTick?.()
      const due = target.nextDueAt()
      stuck = due !== undefined && due <= target.clock.now()
    } catch (error) {
      options.onError?.(error)
    } finally {
      running = false
      arm()
    }
  }

  const unwatch = target.watch(() => {
    stuck = false
    arm()
  })
  arm()
  return {
    /** Stops ticking. */
    stop(): void {
      stopped = true
      unwatch()
      clear()
    },
  }
}

export type Ticker = ReturnType<typeof startTicker>

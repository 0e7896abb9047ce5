import { newId } from '../random.ts'
import type { EngineState } from '../state/state.ts'

/** The state table of transitions due at a time of the mock clock (a call that starts ringing, ends, ...). */
export const SCHEDULE_TABLE = 'schedule'

/** A transition due at `at` (epoch ms, mock clock): `kind` names its handler, `ref` what it concerns. */
export interface Job {
  id: string
  at: number
  /** Order among jobs due at the same time: the order they were scheduled in. */
  seq: number
  kind: string
  /** What the job concerns, e.g. `<account id>/<call id>`: jobs are dropped by it. */
  ref: string
  data?: unknown
}

/** Runs a due job; `job.at` is the time it happens at (the clock may be past it after an advance). */
export type JobHandler = (job: Job) => void

/** Jobs run by one `runDue`: a bound against a runaway chain of jobs that schedule jobs. */
const MAX_JOBS_PER_STEP = 100_000

const before = (a: Job, b: Job) =>
  a.at < b.at || (a.at === b.at && (a.seq < b.seq || (a.seq === b.seq && a.id < b.id)))

/**
 * The engine's schedule: a table of jobs due at times of the mock clock, kept sorted. The engine has no timers:
 * every step (a request, or `tick()` which adapters run on a timer) first runs every job that is due, in order,
 * each as of its own time, so that moving the clock an hour runs an hour of transitions in one step.
 */
export function createScheduler(state: EngineState, onError: (message: string) => void = () => {}) {
  const byId = new Map<string, Job>()
  /** Due first. */
  let sorted: Job[] = []
  let nextSeq = 0
  const handlers = new Map<string, JobHandler>()

  function position(job: Job): number {
    let lo = 0
    let hi = sorted.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (before(sorted[mid] as Job, job)) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  function insert(job: Job): void {
    byId.set(job.id, job)
    sorted.splice(position(job), 0, job)
    if (job.seq >= nextSeq) nextSeq = job.seq + 1
  }

  function unset(id: string): Job | undefined {
    const job = byId.get(id)
    if (!job) return undefined
    byId.delete(id)
    const at = position(job)
    if (sorted[at] === job) sorted.splice(at, 1)
    else sorted = sorted.filter((other) => other !== job)
    return job
  }

  state.register(SCHEDULE_TABLE, {
    apply(key, value) {
      unset(key)
      if (value) insert(value as Job)
    },
    entries: () => byId.entries(),
    clear() {
      byId.clear()
      sorted = []
      nextSeq = 0
    },
  })

  function remove(job: Job): void {
    if (unset(job.id)) state.record(SCHEDULE_TABLE, job.id, null, job)
  }

  return {
    /** Sets the handler of a kind of job. */
    on(kind: string, handler: JobHandler): void {
      handlers.set(kind, handler)
    },

    /** Schedules a job at `at` (epoch ms, mock clock). */
    add(at: number, kind: string, ref: string, data?: unknown): Job {
      const job: Job = {
        id: newId('job'),
        at,
        seq: nextSeq,
        kind,
        ref,
        ...(data === undefined ? {} : { data }),
      }
      insert(job)
      state.record(SCHEDULE_TABLE, job.id, job, null)
      return job
    },

    /** Drops every job whose `ref` matches. */
    dropWhere(matches: (ref: string) => boolean): void {
      for (const job of [...sorted]) if (matches(job.ref)) remove(job)
    },

    /** When the next job is due (epoch ms, mock clock), or undefined when nothing is scheduled. */
    nextAt: (): number | undefined => sorted[0]?.at,

    /** How many jobs are scheduled. */
    get size() {
      return sorted.length
    },

    /**
     * Runs every job due at `now` or before, earliest first (jobs they schedule included, when due too).
     * A job that throws is dropped and reported; the others still run.
     */
    runDue(now: number): number {
      let ran = 0
      for (let head = sorted[0]; head !== undefined && head.at <= now; head = sorted[0]) {
        if (ran >= MAX_JOBS_PER_STEP) break
        ran++
        remove(head)
        try {
          const handler = handlers.get(head.kind)
          if (!handler) throw new Error(`no handler for jobs of kind '${head.kind}'`)
          handler(head)
        } catch (error) {
          onError(
            `Scheduled ${head.kind} (${head.ref}) failed: ${error instanceof Error ? error.message : String(error)}`,
          )
        }
      }
      return ran
    },
  }
}

export type Scheduler = ReturnType<typeof createScheduler>

import type { ContractCheck } from '../checks/types.ts'
import type { CheckOutcome } from './outcome.ts'
import type { Session } from './session.ts'

export interface ScheduleOptions {
  /** Lanes open on the session: checks that may run beside others run up to this many at a time. */
  lanes: number
  /** Start no check after one failed. */
  bail?: boolean
  /** Told of every outcome, in the order of `checks`, as soon as every check before it is done. */
  onOutcome?: (outcome: CheckOutcome) => void
}

export interface Scheduled {
  /** The outcomes of the checks that ran, in the order of `checks`. */
  outcomes: CheckOutcome[]
  /** When the target stopped answering: why, and the checks that were not started. */
  aborted?: { reason: string; notRun: ContractCheck[] }
}

/**
 * Runs the checks in their order, on the session's lanes. A check that may run beside others starts as soon
 * as a lane is free (each lane runs its checks one after another, on its own account); an `exclusive` check
 * (one that moves the mock's clock) waits until every running check is done, runs alone on the main lane,
 * and the next checks start after it. With one lane, checks run one after another exactly as listed.
 * Outcomes are reported in the order of `checks`, however the checks finished. When a check loses the
 * connection and the target does not answer again, no check starts after it.
 */
export async function scheduleChecks(
  session: Pick<Session, 'run' | 'stillReachable'>,
  checks: readonly ContractCheck[],
  options: ScheduleOptions,
): Promise<Scheduled> {
  const lanes = Math.max(1, options.lanes)
  const outcomes: (CheckOutcome | undefined)[] = new Array(checks.length)
  let released = 0
  let stopped = false
  let aborted: string | undefined
  const release = () => {
    while (released < checks.length && outcomes[released]) {
      options.onOutcome?.(outcomes[released] as CheckOutcome)
      released++
    }
  }

  const runOne = async (index: number, lane: number, alongside: boolean) => {
    const outcome = await session.run(checks[index] as ContractCheck, { lane, alongside })
    outcomes[index] = outcome
    if (options.bail && outcome.status === 'failed') stopped = true
    if (outcome.unreachable && !aborted) {
      const reason = await session.stillReachable()
      if (reason) {
        aborted ??= reason
        stopped = true
      }
    }
    release()
  }

  const free = Array.from({ length: lanes }, (_, lane) => lanes - 1 - lane)
  const running = new Set<Promise<void>>()
  let next = 0
  while (next < checks.length && !stopped) {
    const check = checks[next] as ContractCheck
    if (lanes === 1 || check.exclusive) {
      await Promise.all(running)
      if (stopped) break
      await runOne(next++, 0, false)
      continue
    }
    const lane = free.pop()
    if (lane === undefined) {
      await Promise.race(running)
      continue
    }
    const task: Promise<void> = runOne(next++, lane, true).finally(() => {
      free.push(lane)
      running.delete(task)
    })
    running.add(task)
  }
  await Promise.all(running)
  // After a stop, the outcomes that came in behind a check that never started.
  for (const outcome of outcomes.slice(released)) if (outcome) options.onOutcome?.(outcome)

  const ran = outcomes.filter((outcome): outcome is CheckOutcome => outcome !== undefined)
  if (!aborted) return { outcomes: ran }
  return { outcomes: ran, aborted: { reason: aborted, notRun: checks.filter((_, i) => !outcomes[i]) } }
}

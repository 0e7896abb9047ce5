import type { ContractCheck } from '../checks/types.ts'
import type { Prepared } from './check-runner.ts'
import type { CheckOutcome } from './outcome.ts'
import type { Session } from './session.ts'

/** Exclusive checks preparing at the same time, beside the other checks. */
const PREPARING_AT_ONCE = 4

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
  session: Pick<Session, 'run' | 'stillReachable'> & Partial<Pick<Session, 'prepare'>>,
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

  // With several lanes, what the exclusive checks can make ahead (accounts, keys) is made at the start, beside
  // the other checks, a few at a time, so that their turn alone is spent on what needs it.
  const preparing = new Map<number, Promise<Prepared | undefined>>()
  const prepare = lanes > 1 ? session.prepare : undefined
  const preparedFor = (index: number) => {
    const check = checks[index] as ContractCheck
    if (!prepare || !check.exclusive || !check.prepare) return undefined
    let made = preparing.get(index)
    if (!made) {
      made = prepare(check)
      preparing.set(index, made)
    }
    return made
  }
  const ahead = checks.flatMap((check, index) => (check.exclusive && check.prepare ? [index] : []))
  let nextAhead = 0
  const preparer = async () => {
    while (prepare && nextAhead < ahead.length && !stopped) await preparedFor(ahead[nextAhead++] as number)
  }
  const preparers = Array.from({ length: Math.min(PREPARING_AT_ONCE, ahead.length) }, preparer)

  const runOne = async (index: number, lane: number, alongside: boolean) => {
    const outcome = await session.run(checks[index] as ContractCheck, {
      lane,
      alongside,
      prepared: preparedFor(index),
    })
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
  // Nothing made ahead may outlive the run: teardown follows.
  await Promise.all(preparers)
  await Promise.all(preparing.values())
  // After a stop, the outcomes that came in behind a check that never started.
  for (const outcome of outcomes.slice(released)) if (outcome) options.onOutcome?.(outcome)

  const ran = outcomes.filter((outcome): outcome is CheckOutcome => outcome !== undefined)
  if (!aborted) return { outcomes: ran }
  return { outcomes: ran, aborted: { reason: aborted, notRun: checks.filter((_, i) => !outcomes[i]) } }
}

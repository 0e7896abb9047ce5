import { toTimestamp } from '../clock.ts'
import type { AccountDataStore } from '../resources/account-data.ts'
import type { CallLog } from '../resources/types.ts'
import type { Job, Scheduler } from '../schedule/scheduler.ts'
import { dollars } from '../seed/call-timing.ts'
import type { CallEventType } from '../webhooks/call-event.ts'
import { callKey, type SimulatedCall, type SimulatedCalls } from './simulated-calls.ts'

/** A call rings this long after it was queued (docs/decisions/013-calls-and-webhooks.md). */
export const QUEUED_MS = 1000
/** Its analysis is ready this long after it ended, as the seed's calls (docs/decisions/013-calls-and-webhooks.md). */
export const ANALYSIS_DELAY_MS = 120_000

/** Tells the rest of the engine that a call produced an event, at `at` (epoch ms, mock clock). */
export type EmitEvent = (type: CallEventType, log: CallLog, call: SimulatedCall, at: number) => void

const JOB = {
  ring: 'call.ring',
  connect: 'call.connect',
  say: 'call.say',
  end: 'call.end',
  analyze: 'call.analyze',
} as const

const tenths = (seconds: number) => Math.round(seconds * 10) / 10
const seconds = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 1000

/**
 * The stages of a simulated call, as scheduled jobs: `ringing` 1 s after it was queued, then `in_progress`
 * (completed calls) or the final status after the ring time, the transcript growing line by line while it
 * talks, the final status after the talk time, the analysis 120 s after the end. Each job writes the call log
 * (as of its own time) and emits the stage's events; a call whose log was deleted stops.
 */
export function createCallLifecycle(options: {
  calls: SimulatedCalls
  scheduler: Scheduler
  data: AccountDataStore
  emit: EmitEvent
}) {
  const { calls, scheduler, data, emit } = options

  /** The call and its log, or undefined (and the call forgotten) when the log is gone. */
  function current(job: Job): { call: SimulatedCall; log: CallLog } | undefined {
    const call = calls.get(job.ref)
    if (!call) return undefined
    const log = data.get(call.account_id)?.callLogs.get(call.id)
    if (!log) {
      forget(job.ref)
      return undefined
    }
    return { call, log }
  }

  function forget(key: string): void {
    calls.remove(key)
    scheduler.dropWhere((ref) => ref === key)
  }

  function write(call: SimulatedCall, log: CallLog): void {
    data.dataOf(call.account_id).callLogs.put(log)
  }

  /** The transcript as the log shows it: offsets from `started_at` (ringing included). */
  function said(call: SimulatedCall, lines: number): CallLog['transcript'] {
    const ringSeconds = ((call.connected_at ?? 0) - (call.ringing_at ?? 0)) / 1000
    return call.conversation
      .slice(0, lines)
      .map((entry) => ({ ...entry, start_seconds: tenths(entry.start_seconds + ringSeconds) }))
  }

  scheduler.on(JOB.ring, (job) => {
    const found = current(job)
    if (!found) return
    const call = { ...found.call, ringing_at: job.at }
    calls.put(call)
    write(call, { ...found.log, status: 'ringing', started_at: toTimestamp(job.at) })
    scheduler.add(job.at + call.ring_ms, call.outcome === 'completed' ? JOB.connect : JOB.end, job.ref)
  })

  scheduler.on(JOB.connect, (job) => {
    const found = current(job)
    if (!found) return
    const call = { ...found.call, connected_at: job.at }
    calls.put(call)
    const log: CallLog = { ...found.log, status: 'in_progress' }
    write(call, log)
    emit('call.started', log, call, job.at)
    for (const [index, entry] of call.conversation.entries())
      scheduler.add(job.at + entry.start_seconds * 1000, JOB.say, job.ref, index + 1)
    scheduler.add(job.at + call.talk_ms, JOB.end, job.ref)
  })

  scheduler.on(JOB.say, (job) => {
    const found = current(job)
    if (found?.log.status !== 'in_progress') return
    write(found.call, { ...found.log, transcript: said(found.call, job.data as number) })
  })

  scheduler.on(JOB.end, (job) => {
    const found = current(job)
    if (!found) return
    const { call } = found
    const completed = call.outcome === 'completed'
    const endedAt = toTimestamp(job.at)
    const startedAt = found.log.started_at ?? endedAt
    const log: CallLog = {
      ...found.log,
      status: call.outcome,
      ended_at: endedAt,
      duration_seconds: Math.max(0, Math.floor(seconds(startedAt, endedAt))),
      cost_usd: completed ? dollars((call.talk_ms / 60_000) * call.rate_per_minute) : 0,
      end_reason: completed ? call.end_reason : call.outcome === 'failed' ? 'error' : null,
      recording_url: completed ? call.recording_url : null,
      transcript: completed ? said(call, call.conversation.length) : [],
    }
    write(call, log)
    emit('call.ended', log, call, job.at)
    if (log.transcript.length > 0) emit('transcript.ready', log, call, job.at)
    if (completed && call.analysis) scheduler.add(job.at + ANALYSIS_DELAY_MS, JOB.analyze, job.ref)
    else forget(job.ref)
  })

  scheduler.on(JOB.analyze, (job) => {
    const found = current(job)
    if (!found) return
    const log: CallLog = { ...found.log, analysis: found.call.analysis }
    write(found.call, log)
    emit('call.analyzed', log, found.call, job.at)
    forget(job.ref)
  })

  return {
    /** Starts a planned call whose `queued` log is written: it rings 1 s after `now`. */
    begin(call: SimulatedCall, log: CallLog, now: number): void {
      calls.put(call)
      write(call, log)
      scheduler.add(now + QUEUED_MS, JOB.ring, callKey(call.account_id, call.id))
    },
    /** How many calls of an account are under way (not yet ended, or waiting for their analysis). */
    underWay: (accountId: string) => calls.keys().filter((key) => key.startsWith(`${accountId}/`)).length,
    /** Stops and forgets every call of an account. */
    removeAccount(accountId: string): void {
      for (const key of calls.keys()) if (key.startsWith(`${accountId}/`)) forget(key)
    },
  }
}

export type CallLifecycle = ReturnType<typeof createCallLifecycle>

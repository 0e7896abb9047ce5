import { errors } from '../api-error.ts'
import type { Collection } from '../collection.ts'
import { parseTimestamp } from '../timestamp.ts'
import { type Handlers, type OperationContext, pathParam } from './operation-handler.ts'
import { listPage } from './pagination.ts'
import type { CallLog } from './types.ts'

export const callLogsOf = (ctx: OperationContext) => ctx.data.callLogs as Collection<CallLog>

/** A list item: the call log without its transcript (the transcript is on the full object only). */
export function summarizeCallLog(log: CallLog): Omit<CallLog, 'transcript'> {
  const { transcript: _transcript, ...summary } = log
  return summary
}

/** The filters of `GET /call-logs` as one predicate; `agent_id` is served by an index instead. */
export function callLogFilter(query: Record<string, unknown>): ((log: CallLog) => boolean) | undefined {
  const checks: ((log: CallLog) => boolean)[] = []
  const { status, direction, started_after, started_before, min_duration_seconds, max_duration_seconds } =
    query
  if (typeof status === 'string') checks.push((log) => log.status === status)
  if (typeof direction === 'string') checks.push((log) => log.direction === direction)
  // A call not started or not ended (`started_at` / `duration_seconds` null) matches no filter on them.
  const startedAt = (log: CallLog) => (log.started_at === null ? Number.NaN : Date.parse(log.started_at))
  const after = instantOf(started_after, 'started_after')
  const before = instantOf(started_before, 'started_before')
  if (after !== undefined) checks.push((log) => startedAt(log) > after)
  if (before !== undefined) checks.push((log) => startedAt(log) < before)
  if (typeof min_duration_seconds === 'number')
    checks.push((log) => log.duration_seconds !== null && log.duration_seconds >= min_duration_seconds)
  if (typeof max_duration_seconds === 'number')
    checks.push((log) => log.duration_seconds !== null && log.duration_seconds <= max_duration_seconds)
  if (checks.length === 0) return undefined
  return (log) => checks.every((check) => check(log))
}

function findCallLog(ctx: OperationContext): CallLog {
  const log = callLogsOf(ctx).get(pathParam(ctx, 'call_log_id'))
  if (!log) throw errors.resourceNotFound('call log', pathParam(ctx, 'call_log_id'), 'call_log_id')
  return log
}

/** A timestamp filter as milliseconds (any RFC 3339 offset), or 400 naming it. */
function instantOf(value: unknown, param: string): number | undefined {
  if (typeof value !== 'string') return undefined
  const parsed = parseTimestamp(value)
  if (!parsed.ok) throw errors.invalidParameter(param, `${param}: ${parsed.message}`)
  return parsed.ms
}

function checkRanges(query: Record<string, unknown>): void {
  const { started_after, started_before, min_duration_seconds, max_duration_seconds } = query
  const after = instantOf(started_after, 'started_after')
  const before = instantOf(started_before, 'started_before')
  if (after !== undefined && before !== undefined && after >= before)
    throw errors.invalidParameter('started_before', 'started_before must be later than started_after.')
  if (
    typeof min_duration_seconds === 'number' &&
    typeof max_duration_seconds === 'number' &&
    min_duration_seconds > max_duration_seconds
  )
    throw errors.invalidParameter(
      'max_duration_seconds',
      'max_duration_seconds must be at least min_duration_seconds.',
    )
}

/** Behaviour of the call-log operations. */
export function callLogHandlers(): Handlers {
  return {
    listCallLogs: {
      run(ctx) {
        checkRanges(ctx.query)
        const agentId = ctx.query.agent_id
        return {
          status: 200,
          body: listPage(callLogsOf(ctx), ctx.query, {
            index: typeof agentId === 'string' ? { name: 'agent_id', value: agentId } : undefined,
            filter: callLogFilter(ctx.query),
            present: summarizeCallLog,
          }),
        }
      },
    },
    getCallLog: { load: findCallLog, run: (_ctx, log: CallLog) => ({ status: 200, body: log }) },
    deleteCallLog: {
      load: findCallLog,
      run(ctx, log: CallLog) {
        callLogsOf(ctx).remove(log.id)
        return { status: 200, body: { id: log.id, object: 'call_log', deleted: true } }
      },
    },
  }
}

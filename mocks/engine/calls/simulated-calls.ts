import { RecordMap } from '../record-map.ts'
import type { CallLog } from '../resources/types.ts'
import type { Analysis, Entry } from '../seed/transcripts.ts'
import type { EngineState } from '../state/state.ts'

/** The state table of calls under way; a record's key is `<account id>/<call id>` (also its jobs' `ref`). */
export const CALLS_TABLE = 'calls'

/** How a simulated call ends (mock-control.yaml `CallStartRequest.outcome`). */
export type CallOutcome = 'completed' | 'no_answer' | 'busy' | 'failed' | 'canceled'

/**
 * A call under way and what is still to happen to it, decided when it was started (so that any process can
 * take the next step): its call log lives in the account's `call_logs`, this is the plan behind it.
 */
export interface SimulatedCall {
  id: string
  account_id: string
  agent_id: string
  outcome: CallOutcome
  ring_ms: number
  /** How long a completed call talks once connected. */
  talk_ms: number
  /** The conversation, `start_seconds` counted from the moment the call connected. */
  conversation: Entry[]
  end_reason: CallLog['end_reason']
  analysis: Analysis | null
  /** US dollars per connected minute. */
  rate_per_minute: number
  recording_url: string | null
  /** When it started ringing and connected (epoch ms, mock clock), once it has. */
  ringing_at: number | null
  connected_at: number | null
}

export const callKey = (accountId: string, callId: string) => `${accountId}/${callId}`

/** The `calls` table: the plans of the calls under way, dropped once a call has nothing more to do. */
export function createSimulatedCalls(state: EngineState) {
  const calls = new RecordMap<SimulatedCall>((key, value, before, soft) =>
    state.record(CALLS_TABLE, key, value, before, soft),
  )
  state.register(CALLS_TABLE, {
    apply: (key, value) => calls.apply(key, value as SimulatedCall | null),
    entries: () => calls.entries(),
    clear: () => calls.clear(),
  })
  return {
    get: (key: string) => calls.get(key),
    put: (call: SimulatedCall) => calls.put(callKey(call.account_id, call.id), call),
    remove: (key: string) => calls.delete(key),
    /** Keys of every call under way. */
    keys: () => [...calls.keys()],
  }
}

export type SimulatedCalls = ReturnType<typeof createSimulatedCalls>

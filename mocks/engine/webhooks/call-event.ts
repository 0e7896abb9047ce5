import type { components } from '../../../openapi/generated/v1.types.ts'
import { toTimestamp } from '../clock.ts'
import { newId } from '../random.ts'
import type { CallLog } from '../resources/types.ts'

type Schemas = components['schemas']

/** An event the platform sends about a call (v1.yaml `webhooks`): the envelope and the call log in it. */
export type CallEvent =
  | Schemas['CallStartedEvent']
  | Schemas['CallEndedEvent']
  | Schemas['TranscriptReadyEvent']
  | Schemas['CallAnalyzedEvent']

/** The event types, in the order a call produces them. */
export type CallEventType = CallEvent['type']

/** A new event of `type` about a call log, made at `at` (epoch ms, mock clock). */
export function callEvent(type: CallEventType, log: CallLog, at: number): CallEvent {
  // `as`: the contract narrows each event's call log (its status, its analysis); the call's stage makes it so.
  return {
    id: newId('evt'),
    object: 'event',
    type,
    created_at: toTimestamp(at),
    data: { object: log },
  } as CallEvent
}

/** What an in-process listener is told besides the event: whose call it is. */
export interface EventContext {
  account_id: string
  agent_id: string
}

/** Called with every event as the engine produces it (in-process adapters: `api.onEvent`). */
export type EventListener = (event: CallEvent, context: EventContext) => void

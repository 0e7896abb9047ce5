import { randomBytes } from 'node:crypto'
import type { Contract } from '../contract/contract.ts'
import type { ContractWebhook } from '../contract/webhooks.ts'

/** An event envelope as the platform sends it (`{id, object: 'event', type, created_at, data: {object}}`). */
export interface SampleEvent {
  id: string
  object: 'event'
  type: string
  created_at: string
  data: { object: Record<string, unknown> }
  [field: string]: unknown
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** `prefix` and `length` random base62 characters (`evt_...`, `call_...`). */
export function randomId(prefix: string, length = 20): string {
  const bytes = randomBytes(length)
  return prefix + Array.from(bytes, (byte) => BASE62[byte % 62]).join('')
}

/** An ISO timestamp in whole seconds, as the platform writes them. */
const isoSeconds = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`

/** Event types a receiver cannot know: the first one the contract does not define is used. */
const UNKNOWN_TYPES = ['call.transferred', 'call.recording_ready', 'voice-api-kit.unknown_event']

/**
 * Events of the contract's `webhooks`, built from their documented examples with fresh ids (every event is
 * new to the receiver) and the present time, each checked against its schema: a body the contract would
 * refuse is a defect of the kit, never sent.
 */
export function createSampleEvents(contract: Contract) {
  const webhooks = contract.webhooks
  if (webhooks.length === 0) throw new Error('The contract documents no webhooks.')
  const byType = new Map<string, ContractWebhook>(webhooks.map((w) => [w.type, w]))

  function example(webhook: ContractWebhook): SampleEvent {
    const value = webhook.examples[0]
    if (!value || typeof value !== 'object')
      throw new Error(`The contract's webhook '${webhook.type}' has no example body to send.`)
    return structuredClone(value) as SampleEvent
  }

  /** An event of `type` about the call `callId`, checked against the contract. */
  function event(type: string, callId: string, changes: (event: SampleEvent) => void = () => {}) {
    const webhook = byType.get(type)
    if (!webhook) throw new Error(`The contract has no webhook '${type}'.`)
    const made = example(webhook)
    made.id = randomId('evt_')
    made.created_at = isoSeconds(Date.now())
    made.data.object.id = callId
    changes(made)
    const problems = contract.validator.validate(webhook.schema, made)
    if (problems.length > 0)
      throw new Error(
        `The ${type} event built from the contract's example is invalid: ${problems.join('; ')}`,
      )
    return made
  }

  const unknownType = UNKNOWN_TYPES.find((type) => !byType.has(type)) as string

  return {
    /** The contract's event types, in document order (the order a completed call produces them). */
    types: webhooks.map((w) => w.type),
    event,
    /** A call id never sent before. */
    callId: () => randomId('call_', 16),
    /** An event type the contract does not define, in the envelope every event has. */
    unknownType,
    /** An event of `unknownType`: the envelope of the last contract event, with that type. */
    unknownEvent(callId: string): SampleEvent {
      const last = webhooks[webhooks.length - 1] as ContractWebhook
      return { ...event(last.type, callId), type: unknownType }
    },
  }
}

export type SampleEvents = ReturnType<typeof createSampleEvents>

/**
 * JSON as Python's `json.dumps` writes it by default: `", "` and `": "` between items, every character
 * outside ASCII escaped (`\u00e9`). Valid JSON whose bytes differ from what `JSON.stringify` writes for the
 * same value: a receiver that verifies the signature over re-serialised JSON, not the raw body, refuses it.
 */
export function pythonStyleJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonStyleJson).join(', ')}]`
  if (value && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([key, item]) => `${asciiString(key)}: ${pythonStyleJson(item)}`)
      .join(', ')}}`
  if (typeof value === 'string') return asciiString(value)
  return JSON.stringify(value)
}

const asciiString = (text: string) =>
  JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

import { Webhook } from 'standardwebhooks'
import type { Delivery } from './receiver-target.ts'
import { pythonStyleJson, type SampleEvent, type SampleEvents } from './sample-events.ts'

/** The areas of a receiver report, in order, with their titles. */
export const RECEIVER_AREAS = {
  events: 'Contract events',
  refusals: 'Deliveries to refuse',
  acceptances: 'Deliveries to accept',
} as const

export type ReceiverArea = keyof typeof RECEIVER_AREAS

/** What a receiver must do with a delivery: acknowledge it (2xx) or refuse it (4xx). */
export type Expectation = 'accept' | 'refuse'

/** One delivery of a check, with what it is (for a failure's expectation). */
export interface Step {
  /** `a signature that does not match`, `call.started, 4th of 4`. */
  what: string
  delivery: Delivery
}

/** What a check builds its deliveries with. */
export interface DeliveryKit {
  events: SampleEvents
  /** Signs `body` as the platform does and makes the delivery (headers as Standard Webhooks names them). */
  signed(body: string, id: string, options?: SignOptions): Delivery
  /** The receiver's current signing secret, and one it must no longer accept (rotated out). */
  secret: string
  previousSecret: string
}

/**
 * How far from now the deliveries outside the tolerance are dated: twice Standard Webhooks' default tolerance
 * (5 minutes), so a receiver with a somewhat wider one still refuses them.
 */
export const OUTSIDE_TOLERANCE_SECONDS = 600

export interface SignOptions {
  /** When the delivery says it was sent (default now). */
  at?: Date
  /** The secrets whose signatures `webhook-signature` lists, in order (default the current one). */
  secrets?: readonly string[]
}

/** One thing a correct receiver does, checked with one or more deliveries. */
export interface ReceiverCheck {
  id: string
  area: ReceiverArea
  group: string
  title: string
  expect: Expectation
  steps(kit: DeliveryKit): Step[]
}

/** The body as the platform writes it (`JSON.stringify`). */
const json = (event: SampleEvent) => JSON.stringify(event)

/** A correctly signed delivery of a fresh event of `type`. */
function plain(kit: DeliveryKit, type: string, options?: SignOptions): Delivery {
  const event = kit.events.event(type, kit.events.callId())
  return kit.signed(json(event), event.id, options)
}

/** The type of a call's last event (the one with the most in it). */
const lastType = (kit: DeliveryKit) => kit.events.types[kit.events.types.length - 1] as string

/** `delivery` without one of its headers. */
function without(delivery: Delivery, header: string): Delivery {
  const { [header]: _dropped, ...headers } = delivery.headers
  return { ...delivery, headers }
}

/** The signature with its last byte changed: the right form and length, the wrong value. */
function tampered(signature: string): string {
  const [version, value = ''] = signature.split(',')
  const bytes = Buffer.from(value, 'base64')
  bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0x01
  return `${version},${bytes.toString('base64')}`
}

/** A missing-header check. */
function missing(header: string): ReceiverCheck {
  return {
    id: `refusals/missing-${header}`,
    area: 'refusals',
    group: 'Headers',
    title: `refuses a delivery without ${header}`,
    expect: 'refuse',
    steps: (kit) => [
      { what: `a delivery without ${header}`, delivery: without(plain(kit, lastType(kit)), header) },
    ],
  }
}

/** Every event type of the contract, once each, correctly signed. */
function eventChecks(types: readonly string[]): ReceiverCheck[] {
  return types.map((type) => ({
    id: `events/${type}`,
    area: 'events' as const,
    group: type,
    title: `acknowledges a signed ${type} event whose body is the contract's`,
    expect: 'accept' as const,
    steps: (kit: DeliveryKit) => [{ what: `a signed ${type} event`, delivery: plain(kit, type) }],
  }))
}

const refusals: ReceiverCheck[] = [
  {
    id: 'refusals/wrong-signature',
    area: 'refusals',
    group: 'Signature',
    title: 'refuses a signature that does not match (the right form and length, one byte changed)',
    expect: 'refuse',
    steps(kit) {
      const delivery = plain(kit, lastType(kit))
      const signature = tampered(delivery.headers['webhook-signature'] as string)
      return [
        {
          what: 'a signature that does not match',
          delivery: { ...delivery, headers: { ...delivery.headers, 'webhook-signature': signature } },
        },
      ]
    },
  },
  {
    id: 'refusals/body-changed',
    area: 'refusals',
    group: 'Signature',
    title: 'refuses a body changed after it was signed (a valid event, another cost)',
    expect: 'refuse',
    steps(kit) {
      const callId = kit.events.callId()
      const event = kit.events.event(lastType(kit), callId)
      const signed = kit.signed(json(event), event.id)
      const changed = kit.events.event(lastType(kit), callId, (e) => {
        e.id = event.id
        e.created_at = event.created_at
        e.data.object.cost_usd = Number(e.data.object.cost_usd ?? 0) + 100
      })
      return [{ what: 'a body changed after signing', delivery: { ...signed, body: json(changed) } }]
    },
  },
  {
    id: 'refusals/rotated-out-secret',
    area: 'refusals',
    group: 'Signature',
    title: 'refuses a signature made with a secret that was rotated out',
    expect: 'refuse',
    steps: (kit) => [
      {
        what: 'a signature made with the rotated-out secret only',
        delivery: plain(kit, lastType(kit), { secrets: [kit.previousSecret] }),
      },
    ],
  },
  {
    id: 'refusals/timestamp-past',
    area: 'refusals',
    group: 'Timestamp',
    title: 'refuses a delivery signed 10 minutes ago (outside the 5-minute tolerance: a replay)',
    expect: 'refuse',
    steps(kit) {
      const at = new Date(Date.now() - OUTSIDE_TOLERANCE_SECONDS * 1000)
      return [
        {
          what: 'a delivery signed 10 minutes ago',
          delivery: plain(kit, lastType(kit), { at }),
        },
      ]
    },
  },
  {
    id: 'refusals/timestamp-future',
    area: 'refusals',
    group: 'Timestamp',
    title: 'refuses a delivery dated 10 minutes ahead (outside the 5-minute tolerance)',
    expect: 'refuse',
    steps(kit) {
      const at = new Date(Date.now() + OUTSIDE_TOLERANCE_SECONDS * 1000)
      return [
        {
          what: 'a delivery dated 10 minutes ahead',
          delivery: plain(kit, lastType(kit), { at }),
        },
      ]
    },
  },
  missing('webhook-id'),
  missing('webhook-timestamp'),
  missing('webhook-signature'),
]

const acceptances: ReceiverCheck[] = [
  {
    id: 'acceptances/several-signatures',
    area: 'acceptances',
    group: 'Secret rotation',
    title:
      'acknowledges several signatures of which one is valid (the old secret first, the current one last)',
    expect: 'accept',
    steps: (kit) => [
      {
        what: 'two signatures, the valid one second',
        delivery: plain(kit, lastType(kit), { secrets: [kit.previousSecret, kit.secret] }),
      },
    ],
  },
  {
    id: 'acceptances/same-id-twice',
    area: 'acceptances',
    group: 'Retries',
    title: 'acknowledges the same webhook-id delivered twice (a sender retries what it did not see answered)',
    expect: 'accept',
    steps(kit) {
      const event = kit.events.event(kit.events.types[0] as string, kit.events.callId())
      return [
        { what: `${event.type} ${event.id}, first delivery`, delivery: kit.signed(json(event), event.id) },
        { what: `${event.type} ${event.id}, delivered again`, delivery: kit.signed(json(event), event.id) },
      ]
    },
  },
  {
    id: 'acceptances/out-of-order',
    area: 'acceptances',
    group: 'Order',
    title: 'acknowledges the events of one call out of order (the last first, the first last)',
    expect: 'accept',
    steps(kit) {
      const callId = kit.events.callId()
      const types = [...kit.events.types].reverse()
      return types.map((type, index) => {
        const event = kit.events.event(type, callId)
        return {
          what: `${type} of ${callId}, ${index + 1} of ${types.length} (${types.join(', ')})`,
          delivery: kit.signed(json(event), event.id),
        }
      })
    },
  },
  {
    id: 'acceptances/unknown-type',
    area: 'acceptances',
    group: 'Unknown event types',
    title: 'acknowledges an event type it does not know (a new type is no error)',
    expect: 'accept',
    steps(kit) {
      const event = kit.events.unknownEvent(kit.events.callId())
      return [{ what: `a signed ${event.type} event`, delivery: kit.signed(json(event), event.id) }]
    },
  },
  {
    id: 'acceptances/raw-body',
    area: 'acceptances',
    group: 'Raw body',
    title:
      'verifies the signature over the body as sent, not re-serialised JSON (written as Python writes it: spaces, \\u escapes)',
    expect: 'accept',
    steps(kit) {
      const event = kit.events.event(lastType(kit), kit.events.callId(), (e) => {
        e.data.object.metadata = { patient: 'Zoë Pérez', clinic: 'Brightline Dental — Mission St' }
      })
      return [
        {
          what: 'a signed event whose JSON is not written as JSON.stringify writes it',
          delivery: kit.signed(pythonStyleJson(event), event.id),
        },
      ]
    },
  },
]

/** Every check, in the order they run: the contract's events, then what to refuse, then what to accept. */
export function receiverChecks(types: readonly string[]): ReceiverCheck[] {
  return [...eventChecks(types), ...refusals, ...acceptances]
}

/** A Standard Webhooks signature of `body` with each of `secrets`, space separated. */
export function signatures(secrets: readonly string[], id: string, at: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' ')
}

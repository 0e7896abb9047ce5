import type { EngineState } from '../state/state.ts'
import type { CallEvent, CallEventType } from './call-event.ts'
import { MAX_DELIVERIES_PER_ACCOUNT } from './retry-schedule.ts'

/** The state table of webhook deliveries; a record's key is `<account id>/<delivery id>`. */
export const DELIVERIES_TABLE = 'webhook_deliveries'

/** One attempt to deliver an event (the control plane's `WebhookAttempt`). */
export interface Attempt {
  number: number
  at: string
  status_code: number | null
  duration_ms: number | null
  error: string | null
}

/** A process's claim on the next attempt of a delivery: it is making it, until `until` (real epoch ms). */
export interface Claim {
  by: string
  until: number
  /** When the attempt started (epoch ms, mock clock). */
  at: number
}

/** A delivery as the state keeps it: the control plane's `WebhookDelivery` and what delivering needs. */
export interface StoredDelivery {
  id: string
  object: 'webhook_delivery'
  account_id: string
  agent_id: string
  call_id: string
  event_id: string
  event_type: CallEventType
  url: string
  status: 'pending' | 'succeeded' | 'failed'
  attempts: Attempt[]
  next_attempt_at: string | null
  created_at: string
  /** When the next attempt is due (epoch ms, mock clock) while pending. */
  due: number | null
  /** Creation order across the state: the events of a call are delivered in it. */
  seq: number
  /** Failed attempts since the delivery was (re)started, which pick the next retry delay. */
  failures: number
  claim: Claim | null
  /** The body, sent the same on every attempt. */
  event: CallEvent
}

/** The control plane's view of a delivery. */
export function presentDelivery(delivery: StoredDelivery) {
  const { due: _due, seq: _seq, failures: _failures, claim: _claim, event: _event, ...shown } = delivery
  return shown
}

const keyOf = (delivery: StoredDelivery) => `${delivery.account_id}/${delivery.id}`

/**
 * The `webhook_deliveries` table, kept per account (newest last) with an index of the pending ones, which are
 * the only ones the deliverer looks at. Records are replaced, never changed in place.
 */
export function createDeliveryLog(state: EngineState) {
  const byAccount = new Map<string, Map<string, StoredDelivery>>()
  const pending = new Map<string, StoredDelivery>()
  let nextSeq = 0

  function set(delivery: StoredDelivery): void {
    let deliveries = byAccount.get(delivery.account_id)
    if (!deliveries) {
      deliveries = new Map()
      byAccount.set(delivery.account_id, deliveries)
    }
    deliveries.set(delivery.id, delivery)
    if (delivery.status === 'pending') pending.set(keyOf(delivery), delivery)
    else pending.delete(keyOf(delivery))
    if (delivery.seq >= nextSeq) nextSeq = delivery.seq + 1
  }

  function unset(accountId: string, id: string): StoredDelivery | undefined {
    const deliveries = byAccount.get(accountId)
    const found = deliveries?.get(id)
    if (!found || !deliveries) return undefined
    deliveries.delete(id)
    if (deliveries.size === 0) byAccount.delete(accountId)
    pending.delete(`${accountId}/${id}`)
    return found
  }

  state.register(DELIVERIES_TABLE, {
    apply(key, value) {
      const slash = key.indexOf('/')
      unset(key.slice(0, slash), key.slice(slash + 1))
      if (value) set(value as StoredDelivery)
    },
    *entries() {
      for (const deliveries of byAccount.values())
        for (const delivery of deliveries.values()) yield [keyOf(delivery), delivery] as [string, unknown]
    },
    clear() {
      byAccount.clear()
      pending.clear()
      nextSeq = 0
    },
  })

  function remove(delivery: StoredDelivery): void {
    if (unset(delivery.account_id, delivery.id))
      state.record(DELIVERIES_TABLE, keyOf(delivery), null, delivery)
  }

  /** Drops the oldest deliveries of an account past the bound, finished ones first. */
  function trim(accountId: string): void {
    const deliveries = byAccount.get(accountId)
    if (!deliveries || deliveries.size <= MAX_DELIVERIES_PER_ACCOUNT) return
    const oldestFirst = [...deliveries.values()].sort((a, b) => a.seq - b.seq)
    const excess = deliveries.size - MAX_DELIVERIES_PER_ACCOUNT
    const finished = oldestFirst.filter((d) => d.status !== 'pending')
    const dropped = [...finished, ...oldestFirst.filter((d) => d.status === 'pending')].slice(0, excess)
    for (const delivery of dropped) remove(delivery)
  }

  return {
    /** The next creation order number. */
    nextSeq: () => nextSeq,
    /** Adds or replaces a delivery, recorded. */
    put(delivery: StoredDelivery): void {
      const before = byAccount.get(delivery.account_id)?.get(delivery.id) ?? null
      set(delivery)
      state.record(DELIVERIES_TABLE, keyOf(delivery), delivery, before)
      if (!before) trim(delivery.account_id)
    },
    /** A delivery by id, in whichever account it is. */
    find(id: string): StoredDelivery | undefined {
      for (const deliveries of byAccount.values()) {
        const found = deliveries.get(id)
        if (found) return found
      }
      return undefined
    },
    /** An account's deliveries, newest first. */
    list(accountId: string): StoredDelivery[] {
      return [...(byAccount.get(accountId)?.values() ?? [])].sort((a, b) => b.seq - a.seq)
    },
    /** Every pending delivery. */
    pending: (): Iterable<StoredDelivery> => pending.values(),
    /** Deletes every delivery of an account, recorded. */
    removeAccount(accountId: string): void {
      for (const delivery of [...(byAccount.get(accountId)?.values() ?? [])]) remove(delivery)
    },
  }
}

export type DeliveryLog = ReturnType<typeof createDeliveryLog>

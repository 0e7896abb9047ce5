import { type Clock, toTimestamp } from '../clock.ts'
import { newId } from '../random.ts'
import type { Agent } from '../resources/types.ts'
import type { EngineState } from '../state/state.ts'
import type { CallEvent } from './call-event.ts'
import { createDeliveryLog, type StoredDelivery } from './delivery-log.ts'
import { nextAttemptAt } from './retry-schedule.ts'
import type { SigningSecrets } from './signing-secrets.ts'

/** An attempt a process claimed: everything it needs to make it, and nothing it must keep. */
export interface ClaimedAttempt {
  delivery_id: string
  /** The account whose agent's event it is. */
  account_id: string
  url: string
  /** The event as JSON, the same bytes on every attempt. */
  body: string
  /** The event id, the `webhook-id` of every attempt. */
  webhook_id: string
  /** The account's signing secret (`whsec_...`): sign, never log. */
  secret: string
  attempt: number
}

/** What a process asks for when it claims due attempts. */
export interface ClaimRequest {
  /** Who claims (a process), so that only its outcome is recorded. */
  claimant: string
  /** Real time (epoch ms), for the claims' leases. */
  realNow: number
  leaseMs: number
  /** Most attempts to claim. */
  max: number
  /** Why a URL may not be contacted (recorded as the attempt's error), or undefined when it may. */
  refuse?: (url: string) => string | undefined
  /**
   * Whether the claimant takes this attempt now (its own limits: attempts at once per destination, per
   * account); asked once per attempt about to be claimed, in due order. One it does not take stays due, and
   * the later events of its call wait behind it.
   */
  accept?: (attempt: { url: string; account_id: string }) => boolean
}

/** How an attempt went. */
export interface AttemptOutcome {
  delivery_id: string
  claimant: string
  /** The status the receiver answered, or null when it did not. */
  status_code: number | null
  duration_ms: number | null
  /** Why it failed; null when it succeeded (a 2xx). */
  error: string | null
}

const NO_SECRET =
  'not sent: the account has no webhook signing secret; create one (POST /_mock/accounts/{account_id}/webhook-secret) and redeliver'

/**
 * Webhook deliveries as engine state: which attempt is due, claims on attempts (so that among several processes
 * sharing a store one makes each), their outcomes, retries on the mock clock, redelivery. The HTTP requests
 * themselves are made outside the engine (the Node deliverer), between a claim step and an outcome step.
 */
export function createWebhookDeliveries(state: EngineState, clock: Clock, secrets: SigningSecrets) {
  const log = createDeliveryLog(state)

  /** The events of one call to one URL are delivered in order: they share a queue. */
  const queueOf = (d: StoredDelivery) => `${d.account_id}\u0000${d.call_id}\u0000${d.url}`

  /**
   * Whether a delivery waits for an earlier event of its call to the same URL, still pending: built once for
   * all the pending deliveries (the first of each queue goes), so that the check is O(n), not O(n²).
   */
  function waitingCheck(pending: Iterable<StoredDelivery>): (delivery: StoredDelivery) => boolean {
    const first = new Map<string, number>()
    for (const delivery of pending) {
      const queue = queueOf(delivery)
      const seq = first.get(queue)
      if (seq === undefined || delivery.seq < seq) first.set(queue, delivery.seq)
    }
    return (delivery) => (first.get(queueOf(delivery)) ?? delivery.seq) < delivery.seq
  }

  /** The delivery with an attempt recorded, and what follows it (done, a retry, or given up). */
  function afterAttempt(
    delivery: StoredDelivery,
    attempt: Omit<StoredDelivery['attempts'][number], 'number'>,
    ok: boolean,
    now: number,
  ): StoredDelivery {
    const attempts = [...delivery.attempts, { number: delivery.attempts.length + 1, ...attempt }]
    if (ok)
      return { ...delivery, attempts, status: 'succeeded', due: null, next_attempt_at: null, claim: null }
    const failures = delivery.failures + 1
    const retryAt = nextAttemptAt(now, failures)
    return {
      ...delivery,
      attempts,
      failures,
      claim: null,
      status: retryAt === undefined ? 'failed' : 'pending',
      due: retryAt ?? null,
      next_attempt_at: retryAt === undefined ? null : toTimestamp(retryAt),
    }
  }

  /** A failed attempt that contacted no one, at once and for good (nothing would change on a retry). */
  function refused(delivery: StoredDelivery, error: string, now: number): StoredDelivery {
    const attempt = {
      number: delivery.attempts.length + 1,
      at: toTimestamp(now),
      status_code: null,
      duration_ms: null,
      error,
    }
    return {
      ...delivery,
      attempts: [...delivery.attempts, attempt],
      status: 'failed',
      due: null,
      next_attempt_at: null,
      claim: null,
      failures: delivery.failures + 1,
    }
  }

  return {
    log,

    /** Records a delivery of an event to the agent's `webhook_url` when the agent subscribes to it. */
    enqueue(event: CallEvent, agent: Agent | undefined, accountId: string, callId: string, at: number): void {
      if (!agent?.webhook_url || !agent.webhook_events.includes(event.type)) return
      log.put({
        id: newId('whd'),
        object: 'webhook_delivery',
        account_id: accountId,
        agent_id: agent.id,
        call_id: callId,
        event_id: event.id,
        event_type: event.type,
        url: agent.webhook_url,
        status: 'pending',
        attempts: [],
        next_attempt_at: toTimestamp(at),
        created_at: toTimestamp(at),
        due: at,
        seq: log.nextSeq(),
        failures: 0,
        claim: null,
        event,
      })
    },

    /**
     * Claims the attempts due now (mock clock), earliest first, each after the earlier events of its call;
     * a claim lasts `leaseMs` of real time. Deliveries that must not be attempted (no secret, a URL refused)
     * fail here, recorded, and are not returned.
     */
    claimDue(request: ClaimRequest): ClaimedAttempt[] {
      const now = clock.now()
      const pending = [...log.pending()]
      let waits = waitingCheck(pending)
      const due = pending
        .filter(
          (d) => d.due !== null && d.due <= now && (d.claim === null || d.claim.until <= request.realNow),
        )
        .sort((a, b) => (a.due as number) - (b.due as number) || a.seq - b.seq)
      const claimed: ClaimedAttempt[] = []
      for (const delivery of due) {
        if (claimed.length >= request.max) break
        if (waits(delivery)) continue
        const secret = secrets.get(delivery.account_id)
        const refusal = secret ? request.refuse?.(delivery.url) : NO_SECRET
        if (refusal !== undefined || !secret) {
          const failed = refused(delivery, refusal ?? NO_SECRET, now)
          log.put(failed)
          // The next event of its call may go now.
          pending.splice(pending.indexOf(delivery), 1)
          waits = waitingCheck(pending)
          continue
        }
        if (request.accept && !request.accept({ url: delivery.url, account_id: delivery.account_id }))
          continue
        log.put({
          ...delivery,
          claim: { by: request.claimant, until: request.realNow + request.leaseMs, at: now },
        })
        claimed.push({
          delivery_id: delivery.id,
          account_id: delivery.account_id,
          url: delivery.url,
          body: JSON.stringify(delivery.event),
          webhook_id: delivery.event_id,
          secret: secret.value,
          attempt: delivery.attempts.length + 1,
        })
      }
      return claimed
    },

    /** Records how a claimed attempt went; ignored when the claim was lost (its lease ran out, a reset). */
    complete(outcome: AttemptOutcome): void {
      const delivery = log.find(outcome.delivery_id)
      if (!delivery?.claim || delivery.claim.by !== outcome.claimant || delivery.status !== 'pending') return
      const ok = outcome.error === null
      const attempt = {
        at: toTimestamp(delivery.claim.at),
        status_code: outcome.status_code,
        duration_ms: outcome.duration_ms,
        error: outcome.error,
      }
      log.put(afterAttempt(delivery, attempt, ok, clock.now()))
    },

    /** Sends a delivery again from now, on a fresh retry schedule; undefined when there is no such delivery. */
    redeliver(id: string): StoredDelivery | undefined {
      const delivery = log.find(id)
      if (!delivery) return undefined
      const now = clock.now()
      const again: StoredDelivery = {
        ...delivery,
        status: 'pending',
        failures: 0,
        due: now,
        next_attempt_at: toTimestamp(now),
      }
      log.put(again)
      return again
    },

    /**
     * When the next attempt falls due (epoch ms, mock clock), or undefined when none is: attempts waiting for
     * an earlier event count when that one is done; one being made, when its claim would run out.
     */
    nextDueAt(realNow: number): number | undefined {
      const waits = waitingCheck(log.pending())
      const offsetMs = clock.offsetSeconds() * 1000
      let next: number | undefined
      for (const delivery of log.pending()) {
        if (delivery.due === null || waits(delivery)) continue
        const at =
          delivery.claim && delivery.claim.until > realNow
            ? Math.max(delivery.due, delivery.claim.until + offsetMs)
            : delivery.due
        if (next === undefined || at < next) next = at
      }
      return next
    },
  }
}

export type WebhookDeliveries = ReturnType<typeof createWebhookDeliveries>

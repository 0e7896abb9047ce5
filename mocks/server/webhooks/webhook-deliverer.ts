import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { ATTEMPT_TIMEOUT_MS, CLAIM_LEASE_MS } from '../../engine/webhooks/retry-schedule.ts'
import type {
  AttemptOutcome,
  ClaimedAttempt,
  ClaimRequest,
} from '../../engine/webhooks/webhook-deliveries.ts'
import { createDestinationPolicy } from './destination-policy.ts'

/** The engine's side of deliveries, as the platform offers it. */
export interface DeliveringPlatform {
  webhooks: {
    claimDue(request: ClaimRequest): Promise<ClaimedAttempt[]>
    complete(outcome: AttemptOutcome): Promise<void>
  }
}

export interface WebhookDelivererOptions {
  /** Hosts the mock may reach besides loopback ones (`--webhook-hosts`). */
  hosts?: readonly string[]
  /** Attempts made at once. Default 8. */
  concurrency?: number
  /** Real milliseconds a receiver has to answer. Default 10 s. */
  timeoutMs?: number
  /** One line per attempt (never a secret or a body). */
  log?: (line: string) => void
}

/** Answer bytes read from a receiver at most (the rest is dropped). */
const MAX_ANSWER_BYTES = 64 * 1024

/** Why a request got no answer, in words. */
function failure(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: string }).name
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${timeoutMs / 1000} s`
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  return `could not connect: ${cause?.code ?? cause?.message ?? (error as Error).message}`
}

/**
 * Makes the webhook attempts the engine says are due: claims them through a step (so that among several
 * processes on one store exactly one makes each), POSTs the event signed with the `standardwebhooks` package
 * (`webhook-id`, `webhook-timestamp` in real seconds, `webhook-signature`), and records the outcome through
 * another step. Redirects are not followed; a URL outside the allowed destinations is never contacted.
 */
export function createWebhookDeliverer(platform: DeliveringPlatform, options: WebhookDelivererOptions = {}) {
  const claimant = `deliverer-${randomBytes(8).toString('hex')}`
  const concurrency = options.concurrency ?? 8
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS
  const refuse = createDestinationPolicy(options.hosts)
  const inFlight = new Set<Promise<void>>()
  let claiming: Promise<void> | undefined
  let stopped = false

  async function attempt(claimed: ClaimedAttempt): Promise<void> {
    const sentAt = new Date()
    const body = claimed.body
    const signature = new Webhook(claimed.secret).sign(claimed.webhook_id, sentAt, body)
    const started = performance.now()
    let outcome: Omit<AttemptOutcome, 'delivery_id' | 'claimant'>
    try {
      const response = await fetch(claimed.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'voice-api-kit-mock (webhooks)',
          'webhook-id': claimed.webhook_id,
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body,
      })
      await drain(response)
      const ok = response.status >= 200 && response.status < 300
      outcome = {
        status_code: response.status,
        duration_ms: elapsed(started),
        error: ok ? null : `answered ${response.status}`,
      }
    } catch (error) {
      outcome = { status_code: null, duration_ms: elapsed(started), error: failure(error, timeoutMs) }
    }
    options.log?.(
      `webhook ${claimed.delivery_id} attempt ${claimed.attempt} -> ${claimed.url}: ${outcome.error ?? `${outcome.status_code}`}`,
    )
    await platform.webhooks.complete({ delivery_id: claimed.delivery_id, claimant, ...outcome })
  }

  async function claimAndSend(): Promise<void> {
    const free = concurrency - inFlight.size
    if (free <= 0 || stopped) return
    const claimed = await platform.webhooks.claimDue({
      claimant,
      realNow: Date.now(),
      leaseMs: CLAIM_LEASE_MS,
      max: free,
      refuse,
    })
    for (const one of claimed) {
      const running: Promise<void> = attempt(one)
        .catch(() => {
          // The outcome could not be recorded (the store is unavailable): the claim runs out and another try follows.
        })
        .finally(() => {
          inFlight.delete(running)
          // The next event of the same call may be due now that this one is done.
          void deliverDue()
        })
      inFlight.add(running)
    }
  }

  /** Claims and starts every attempt due now (up to the concurrency); resolves once they are claimed. */
  function deliverDue(): Promise<void> {
    if (stopped) return Promise.resolve()
    claiming ??= claimAndSend()
      .catch(() => {})
      .finally(() => {
        claiming = undefined
      })
    return claiming
  }

  return {
    deliverDue,
    /** Resolves once no attempt is under way or being claimed (the ones that follow others included). */
    async idle(): Promise<void> {
      while (claiming || inFlight.size > 0) {
        await claiming
        await Promise.all([...inFlight])
      }
    },
    /** Stops claiming and waits for the attempts under way. */
    async stop(): Promise<void> {
      stopped = true
      await claiming
      await Promise.all([...inFlight])
    },
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000
}

/** Reads and drops a bounded part of the answer, so that the connection is released. */
async function drain(response: Response): Promise<void> {
  const reader = response.body?.getReader()
  if (!reader) return
  let read = 0
  try {
    while (read < MAX_ANSWER_BYTES) {
      const chunk = await reader.read()
      if (chunk.done) return
      read += chunk.value.byteLength
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
}

export type WebhookDeliverer = ReturnType<typeof createWebhookDeliverer>

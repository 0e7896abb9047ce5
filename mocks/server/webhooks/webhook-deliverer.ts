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
  /** Attempts made at once to one destination (scheme, host and port). Default 2. */
  perDestination?: number
  /** Attempts made at once for one account's agents. Default half of `concurrency` (at least 1). */
  perAccount?: number
  /** Real milliseconds a receiver has to answer. Default 10 s. */
  timeoutMs?: number
  /** One line per attempt (never a secret or a body). */
  log?: (line: string) => void
}

/** Answer bytes read from a receiver at most (the rest is dropped). */
const MAX_ANSWER_BYTES = 64 * 1024

/** Where an attempt goes, as its limit counts it: scheme, host and port (the URL itself when it is not one). */
function destinationOf(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}

/** Counts of attempts under way by key (a destination, an account). */
function tally() {
  const counts = new Map<string, number>()
  return {
    get: (key: string) => counts.get(key) ?? 0,
    add(key: string, by: number) {
      const next = (counts.get(key) ?? 0) + by
      if (next === 0) counts.delete(key)
      else counts.set(key, next)
    },
    copy: () => new Map(counts),
  }
}

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
 * At most `concurrency` attempts are under way at once, at most `perDestination` of them to one destination and
 * `perAccount` for one account: a receiver that accepts and never answers holds its own slots for the 10 s
 * timeout, not everyone's (the others' attempts due meanwhile are claimed past its waiting ones).
 */
export function createWebhookDeliverer(platform: DeliveringPlatform, options: WebhookDelivererOptions = {}) {
  const claimant = `deliverer-${randomBytes(8).toString('hex')}`
  const concurrency = options.concurrency ?? 8
  const perDestination = options.perDestination ?? 2
  const perAccount = options.perAccount ?? Math.max(1, Math.floor(concurrency / 2))
  const byDestination = tally()
  const byAccount = tally()
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
    // What this claim would add to the attempts under way (the step may be undone: counted once it returns).
    const destinations = byDestination.copy()
    const accounts = byAccount.copy()
    const accept = ({ url, account_id }: { url: string; account_id: string }) => {
      const destination = destinationOf(url)
      if ((destinations.get(destination) ?? 0) >= perDestination) return false
      if ((accounts.get(account_id) ?? 0) >= perAccount) return false
      destinations.set(destination, (destinations.get(destination) ?? 0) + 1)
      accounts.set(account_id, (accounts.get(account_id) ?? 0) + 1)
      return true
    }
    const claimed = await platform.webhooks.claimDue({
      claimant,
      realNow: Date.now(),
      leaseMs: CLAIM_LEASE_MS,
      max: free,
      refuse,
      accept,
    })
    for (const one of claimed) {
      const destination = destinationOf(one.url)
      byDestination.add(destination, 1)
      byAccount.add(one.account_id, 1)
      const running: Promise<void> = attempt(one)
        .catch(() => {
          // The outcome could not be recorded (the store is unavailable): the claim runs out and another try follows.
        })
        .finally(() => {
          byDestination.add(destination, -1)
          byAccount.add(one.account_id, -1)
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

import { randomBytes } from 'node:crypto'
import { ATTEMPT_TIMEOUT_MS } from '../../mocks/engine/webhooks/retry-schedule.ts'
import { createContract } from '../contract/contract.ts'
import { describeExchange, toCurl } from '../http/exchange.ts'
import type { ReportEntry } from '../report/entries.ts'
import { formatFailure } from '../report/format-failure.ts'
import type { FailureReport } from '../runner/outcome.ts'
import { expectation, gradeAnswer } from './grade-answer.ts'
import { type DeliveryKit, type ReceiverCheck, receiverChecks, signatures } from './receiver-checks.ts'
import {
  type Delivery,
  type DeliveryAnswer,
  type ReceiverTarget,
  sendDelivery,
  targetUrl,
} from './receiver-target.ts'
import { createSampleEvents } from './sample-events.ts'

export interface TestReceiverOptions {
  /** Milliseconds the receiver has to answer each delivery: the platform's delivery timeout, 10 s, by default. */
  timeoutMs?: number
  /**
   * A secret the receiver used before a rotation (`whsec_...`), which it must now refuse; by default one made
   * for the run (a secret the receiver never held).
   */
  previousSecret?: string
  /** Hears, once the target and secrets are found usable and before anything is sent, what will run. */
  onStart?: (plan: { url: string; checks: number; timeoutMs: number }) => void
  /** Hears each check's result as soon as it is known (progress). */
  onResult?: (entry: ReportEntry) => void
}

/** What a run found. */
export interface ReceiverTestResult {
  /** The URL the deliveries went to. */
  url: string
  /** One per check, in the order they ran; failures carry the delivery as a curl command, secrets redacted. */
  entries: ReportEntry[]
  durationMs: number
  /** Deliveries sent. */
  requests: number
  /** Every check passed. */
  passed: boolean
}

/** The target or the secret cannot be used: nothing was sent. */
export class ReceiverConfigError extends Error {}

/** The receiver could not be reached at all (the first delivery found no one listening): nothing was graded. */
export class ReceiverUnreachableError extends Error {}

const SECRET_FORM = /^whsec_[A-Za-z0-9+/]+={0,2}$/
const USER_AGENT = 'voice-api-kit test-receiver'

/** Checks the form of a signing secret, naming `what` and never the value. */
function checkSecret(secret: unknown, what: string): string {
  if (
    typeof secret !== 'string' ||
    !SECRET_FORM.test(secret) ||
    Buffer.from(secret.slice(6), 'base64').length === 0
  )
    throw new ReceiverConfigError(
      `${what} must be a Standard Webhooks signing secret: whsec_ followed by base64, as the platform shows it.`,
    )
  return secret
}

function checkTarget(target: ReceiverTarget): string {
  const url = targetUrl(target)
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new ReceiverConfigError(`The receiver URL '${url}' is not a URL.`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ReceiverConfigError(`The receiver URL must be http:// or https://, got ${parsed.protocol}//.`)
  if ('fetch' in target && typeof target.fetch !== 'function')
    throw new ReceiverConfigError('The receiver target needs a url, or a fetch handler function.')
  return url
}

/** Removes every form of the secrets from a text (the whole `whsec_...`, and its base64 alone). */
function hideSecrets(text: string, secrets: readonly string[]): string {
  let out = text
  for (const secret of secrets)
    for (const form of [secret, secret.slice('whsec_'.length)])
      if (form.length >= 8) out = out.split(form).join('whsec_[redacted]')
  return out
}

const clip = (text: string, max = 1500) =>
  text.length > max ? `${text.slice(0, max)}... (${text.length} bytes)` : text

/** The delivery and the answer as a report shows them: request, response, and a curl that sends it again. */
function failureOf(
  expected: string,
  actual: string,
  delivery: Delivery,
  answer: DeliveryAnswer,
  secrets: readonly string[],
): FailureReport {
  const request = { method: 'POST', url: delivery.url, headers: delivery.headers, body: delivery.body }
  const curl = hideSecrets(toCurl(request, new Map(), []), secrets)
  if (answer.status === undefined) {
    const lines = [
      `> POST ${delivery.url}`,
      ...Object.entries(delivery.headers).map(([k, v]) => `> ${k}: ${v}`),
    ]
    lines.push('>', `> ${clip(delivery.body)}`)
    return { expected, actual, request: hideSecrets(lines.join('\n'), secrets), curl }
  }
  const exchange = {
    request,
    response: { ...answer, status: answer.status, json: undefined },
  }
  const [requestText = '', responseText = ''] = hideSecrets(describeExchange(exchange, []), secrets).split(
    /\n(?=< \d{3} )/,
  )
  return { expected, actual, request: requestText, response: responseText, curl }
}

/**
 * Grades a webhook receiver the way the platform delivers to it: sends it the contract's events (bodies valid
 * against the `webhooks` of `openapi/v1.yaml`) signed per Standard Webhooks with `secret`, deliveries it must
 * refuse (a signature that does not match, a body changed after signing, a timestamp 10 minutes in the past or
 * the future, each header missing, a signature from a rotated-out secret: a 4xx, not a 5xx, within the timeout)
 * and deliveries it must acknowledge (several signatures of which one is valid, the same `webhook-id` twice,
 * a call's events out of order, an unknown event type, a body not written as `JSON.stringify` writes it: a
 * 2xx within the timeout). A redirect always fails. One check at a time, one delivery at a time.
 *
 * ```ts
 * import { formatReceiverSummary, testReceiver } from 'voice-api-kit/contracts'
 * const result = await testReceiver({ url: 'http://127.0.0.1:3000/webhooks' }, process.env.WEBHOOK_SECRET!)
 * console.log(formatReceiverSummary(result))
 * ```
 * Throws ReceiverConfigError for a target or secret it cannot use (before sending anything), and
 * ReceiverUnreachableError when the first delivery finds nobody listening. The secret never appears in a result.
 */
export async function testReceiver(
  target: ReceiverTarget,
  secret: string,
  options: TestReceiverOptions = {},
): Promise<ReceiverTestResult> {
  const url = checkTarget(target)
  checkSecret(secret, 'The signing secret')
  const previousSecret =
    options.previousSecret === undefined
      ? `whsec_${randomBytes(24).toString('base64')}`
      : checkSecret(options.previousSecret, 'The previous signing secret')
  if (previousSecret === secret)
    throw new ReceiverConfigError('The previous signing secret is the current one: give the one rotated out.')
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new ReceiverConfigError(`The timeout must be a positive number of milliseconds, got ${timeoutMs}.`)
  const secrets = [secret, previousSecret]
  const events = createSampleEvents(createContract())
  const kit: DeliveryKit = {
    events,
    secret,
    previousSecret,
    signed(body, id, { at = new Date(), secrets: signers = [secret] } = {}) {
      return {
        url,
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': signatures(signers, id, at, body),
        },
        body,
      }
    },
  }
  const started = performance.now()
  const entries: ReportEntry[] = []
  let requests = 0

  async function run(check: ReceiverCheck): Promise<ReportEntry> {
    const checkStarted = performance.now()
    let sent = 0
    let failure: FailureReport | undefined
    for (const step of check.steps(kit)) {
      const answer = await sendDelivery(target, step.delivery, timeoutMs)
      sent++
      requests++
      if (answer.unreachable && requests === 1)
        throw new ReceiverUnreachableError(
          `Nothing answered at ${url}: ${answer.error}. Is the receiver running?`,
        )
      const problem = gradeAnswer(check.expect, answer)
      if (problem === undefined) continue
      const expected = expectation(check.expect, step.what, timeoutMs)
      failure = failureOf(expected, hideSecrets(problem, secrets), step.delivery, answer, secrets)
      break
    }
    return {
      id: check.id,
      area: check.area,
      group: check.group,
      title: check.title,
      status: failure ? 'failed' : 'passed',
      failure: failure ? formatFailure(failure) : undefined,
      details: failure,
      durationMs: performance.now() - checkStarted,
      requests: sent,
    }
  }

  const checks = receiverChecks(events.types)
  options.onStart?.({ url, checks: checks.length, timeoutMs })
  for (const check of checks) {
    const entry = await run(check)
    entries.push(entry)
    options.onResult?.(entry)
  }
  return {
    url,
    entries,
    durationMs: performance.now() - started,
    requests,
    passed: entries.every((e) => e.status === 'passed'),
  }
}

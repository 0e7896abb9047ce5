import { CheckSkipped, ensure, expectStatus, fail, inOrder, jsonObject } from '../checks/failure.ts'
import { agentBody, scratchAccount } from '../checks/fixtures.ts'
import type { CheckContext } from '../checks/types.ts'
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts'

/** The event types, in the order a completed call produces them. */
export const CALL_EVENTS = ['call.started', 'call.ended', 'transcript.ready', 'call.analyzed'] as const

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/i

/** Skips a check that never applies to this kind of target. */
function notApplicable(reason: string): never {
  throw new CheckSkipped(reason, true)
}

/** A call placed on the mock with a receiver subscribed to its events, and the signing secret. */
export interface WebhookRun {
  receiver: WebhookReceiver
  secret: string
  accountId: string
  /** A secret key of the account (the check's own). */
  key: string
  agentId: string
  callId: string
  /** The control plane's answer to a path under `/_mock`. */
  control(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }>
}

/**
 * Skips unless the target is a mock the suite provisioned, reached over the network on this machine (its
 * deliveries go to a receiver on 127.0.0.1, the only destination a mock contacts by default).
 */
function requireLocalMock(ctx: CheckContext): string {
  const root = ctx.mock?.root
  if (!root)
    ctx.skip(
      'needs a mock provisioned by the suite (--provision mock): only a mock can be made to place calls',
    )
  if (ctx.target.fetch)
    notApplicable('needs the mock over the network (a custom fetch cannot receive webhooks)')
  if (!LOOPBACK.test(new URL(root).hostname))
    notApplicable(
      `needs the mock on this machine: it sends webhooks to loopback receivers only, and ${new URL(root).host} is not`,
    )
  return root
}

/** What a webhook check makes before its call: a receiver, an account with its key and signing secret, an agent. */
export type CallSetup = Omit<WebhookRun, 'callId'>

/**
 * Starts a receiver and makes an account of the check's own (deleted in teardown) with a key, the account's
 * signing secret and an agent subscribed to `events` at the receiver (closed in teardown). Only the control
 * plane and the account's own key are used: a webhook check makes this in its `prepare`, beside the other
 * checks, before its turn alone.
 */
export async function prepareCall(
  ctx: CheckContext,
  statuses: readonly number[] = [200],
  events: readonly string[] = CALL_EVENTS,
): Promise<CallSetup> {
  const root = requireLocalMock(ctx)
  const mock = ctx.mock as NonNullable<CheckContext['mock']>
  const control: WebhookRun['control'] = async (method, path, body) => {
    const headers: Record<string, string> = {}
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (ctx.target.mockAdminToken) headers.authorization = `Bearer ${ctx.target.mockAdminToken}`
    const response = await fetch(`${root}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.text()
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }
  }
  const { account, name } = await scratchAccount(ctx, mock, 'webhooks')
  const receiver = await startWebhookReceiver(statuses)
  ctx.defer(receiver.close)
  // The secret and the key (then the agent subscribed at the receiver) do not depend on each other.
  const [secret, key] = await inOrder([
    control('POST', `/accounts/${account.id}/webhook-secret`),
    mock.createKey(account.id, { type: 'secret', name }),
  ])
  if (secret.status === 404) notApplicable('the mock has no webhook operations (an older voice-api-kit)')
  ensure(secret.status === 201, 'the signing secret created (201)', `${secret.status}`)
  const created = await ctx.call({
    method: 'POST',
    path: '/agents',
    json: agentBody(ctx, { webhook_url: receiver.url, webhook_events: events }),
    key: key.value,
    sensitive: [key.value],
    operationId: 'createAgent',
  })
  expectStatus(created, 201, 'for a valid create-agent body')
  return {
    receiver,
    secret: String(secret.body.value),
    accountId: account.id,
    agentId: String(jsonObject(created).id),
    key: key.value,
    control,
  }
}

/**
 * Places a call (by default a short one, answered) for the agent `prepareCall` made (`ctx.prepared`).
 */
export async function placeCall(
  ctx: CheckContext,
  // Long enough for words to be said (a transcript, so transcript.ready), short on the mock clock.
  plan: Record<string, unknown> = { ring_seconds: 0, duration_seconds: 30 },
): Promise<WebhookRun> {
  const setup = ctx.prepared as CallSetup | undefined
  if (!setup) throw new Error('unreachable: a webhook check prepares its call')
  const call = await setup.control('POST', `/accounts/${setup.accountId}/calls`, {
    agent_id: setup.agentId,
    ...plan,
  })
  if (call.status !== 201)
    fail('the call started (201)', `${call.status} ${JSON.stringify(call.body).slice(0, 200)}`)
  return { ...setup, callId: String(call.body.id) }
}

/**
 * Skips (not applicable) when the mock recorded no delivery for the call once it has produced events: an
 * in-process mock (MSW, a browser) sends events to `api.onEvent` listeners, not to URLs.
 */
export async function requireDeliveries(run: WebhookRun): Promise<void> {
  const listed = await run.control(
    'GET',
    `/accounts/${run.accountId}/webhook-deliveries?call_id=${encodeURIComponent(run.callId)}`,
  )
  const deliveries = Array.isArray(listed.body.data) ? listed.body.data : []
  if (listed.status === 200 && deliveries.length === 0 && run.receiver.received.length === 0)
    notApplicable(
      'the mock records no webhook deliveries: it runs in-process (MSW) or in a browser, where events reach api.onEvent listeners; run the standalone mock (voice-api-kit mock) for this area',
    )
}

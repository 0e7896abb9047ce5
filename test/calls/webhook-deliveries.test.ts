import { createServer } from 'node:http'
import { Webhook } from 'standardwebhooks'
import { afterEach, describe, expect, it } from 'vitest'
import type { MockPlatform } from '../../mocks/platform.ts'
import { listen } from '../../mocks/server/http-server.ts'
import { createDestinationPolicy } from '../../mocks/server/webhooks/destination-policy.ts'
import {
  createWebhookDeliverer,
  type WebhookDeliverer,
} from '../../mocks/server/webhooks/webhook-deliverer.ts'
import { advance, firstAgent, frozenPlatform, send } from './engine-client.ts'
import { eventually, startReceiver } from './receiver.ts'

const EVERY_EVENT = ['call.started', 'call.ended', 'call.analyzed', 'transcript.ready']

const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const undo of cleanup.splice(0).reverse()) await undo()
})

/** A platform that records deliveries, a deliverer, a receiver, and an agent pointed at it with a secret. */
async function setup(statuses: number[] = [200], options: { hosts?: string[]; url?: string } = {}) {
  const { platform, key, accountId } = await frozenPlatform({ webhookDeliveries: true })
  const lines: string[] = []
  const deliverer = createWebhookDeliverer(platform, {
    hosts: options.hosts,
    log: (line) => lines.push(line),
  })
  const receiver = await startReceiver(statuses)
  cleanup.push(
    receiver.close,
    () => deliverer.stop(),
    () => platform.close(),
  )
  const agent = await firstAgent(platform, key)
  const updated = await send(platform, 'PATCH', `/v1/agents/${agent.id}`, {
    key,
    body: { webhook_url: options.url ?? receiver.url, webhook_events: EVERY_EVENT },
  })
  expect(updated.status).toBe(200)
  const secret = await send(platform, 'POST', `/_mock/accounts/${accountId}/webhook-secret`)
  expect(secret.status).toBe(201)
  return { platform, key, accountId, agent, deliverer, receiver, secret: secret.body.value as string, lines }
}

/** Advances the clock, then lets the deliverer make every attempt that fell due. */
async function step(platform: MockPlatform, deliverer: WebhookDeliverer, seconds: number) {
  if (seconds > 0) await advance(platform, seconds)
  await deliverer.deliverDue()
  await deliverer.idle()
}

async function deliveries(platform: MockPlatform, accountId: string) {
  return (await send(platform, 'GET', `/_mock/accounts/${accountId}/webhook-deliveries`)).body.data
}

describe('webhook deliveries', () => {
  it('delivers every subscribed event of a completed call once, in order, each signature valid', async () => {
    const { platform, accountId, agent, deliverer, receiver, secret } = await setup()
    const call = await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, {
      body: { agent_id: agent.id, duration_seconds: 30 },
    })
    for (const seconds of [1, 4, 30, 120]) await step(platform, deliverer, seconds)
    const events = receiver.events()
    expect(events.map((e) => e.type)).toEqual([
      'call.started',
      'call.ended',
      'transcript.ready',
      'call.analyzed',
    ])
    expect(new Set(events.map((e) => e.id)).size).toBe(4)
    for (const event of events) expect(event.data.object.id).toBe(call.body.id)
    const verifier = new Webhook(secret)
    for (const { headers, body } of receiver.received) {
      expect(headers['webhook-id']).toBe(JSON.parse(body).id)
      expect(() => verifier.verify(body, headers as Record<string, string>)).not.toThrow()
    }
    const log = await deliveries(platform, accountId)
    expect(log).toHaveLength(4)
    for (const delivery of log) expect(delivery).toMatchObject({ status: 'succeeded', next_attempt_at: null })
  })

  it('sends only the events the agent subscribes to', async () => {
    const { platform, key, accountId, agent, deliverer, receiver } = await setup()
    await send(platform, 'PATCH', `/v1/agents/${agent.id}`, { key, body: { webhook_events: ['call.ended'] } })
    await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, { body: { agent_id: agent.id } })
    for (const seconds of [1, 4, 60, 120]) await step(platform, deliverer, seconds)
    expect(receiver.events().map((e) => e.type)).toEqual(['call.ended'])
  })

  it('retries a receiver that answers 500 twice then 200: three attempts 5 s and 30 s apart, one webhook-id', async () => {
    const { platform, key, accountId, agent, deliverer, receiver } = await setup([500, 500, 200])
    await send(platform, 'PATCH', `/v1/agents/${agent.id}`, {
      key,
      body: { webhook_events: ['call.started'] },
    })
    await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, { body: { agent_id: agent.id } })
    await step(platform, deliverer, 1)
    await step(platform, deliverer, 4)
    expect(receiver.received).toHaveLength(1)
    await step(platform, deliverer, 4.9)
    expect(receiver.received).toHaveLength(1)
    await step(platform, deliverer, 0.2)
    expect(receiver.received).toHaveLength(2)
    await step(platform, deliverer, 29.7)
    expect(receiver.received).toHaveLength(2)
    await step(platform, deliverer, 0.4)
    expect(receiver.received).toHaveLength(3)
    await step(platform, deliverer, 7200)
    expect(receiver.received).toHaveLength(3)
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1)
    const [delivery] = await deliveries(platform, accountId)
    expect(delivery.status).toBe('succeeded')
    expect(delivery.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 200])
    expect(delivery.attempts.map((a: { error: string | null }) => a.error)).toEqual([
      'answered 500',
      'answered 500',
      null,
    ])
    const times = delivery.attempts.map((a: { at: string }) => Date.parse(a.at) / 1000)
    expect(times[1] - times[0]).toBe(5)
    expect(times[2] - times[1]).toBe(30)
  })

  it('gives a delivery up after six failed attempts, 5 s, 30 s, 2 min, 10 min and 1 h apart', async () => {
    const { platform, key, accountId, agent, deliverer, receiver } = await setup([503])
    await send(platform, 'PATCH', `/v1/agents/${agent.id}`, {
      key,
      body: { webhook_events: ['call.started'] },
    })
    await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, { body: { agent_id: agent.id } })
    await step(platform, deliverer, 5)
    for (const seconds of [5, 30, 120, 600, 3600]) {
      await step(platform, deliverer, seconds - 0.5)
      await step(platform, deliverer, 0.5)
    }
    await step(platform, deliverer, 86_400)
    expect(receiver.received).toHaveLength(6)
    const [delivery] = await deliveries(platform, accountId)
    expect(delivery).toMatchObject({ status: 'failed', next_attempt_at: null })
    const times = delivery.attempts.map((a: { at: string }) => Date.parse(a.at) / 1000)
    expect(times.slice(1).map((t: number, i: number) => t - times[i])).toEqual([5, 30, 120, 600, 3600])
  })

  it('holds the later events of a call until the earlier one was delivered', async () => {
    const { platform, accountId, agent, deliverer, receiver } = await setup([500, 200])
    // 5 s: long enough for the conversation's first line (with 2 s, about 1 call in 10 said nothing, and a
    // call in which nothing was said has no transcript.ready).
    await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, {
      body: { agent_id: agent.id, duration_seconds: 5 },
    })
    await step(platform, deliverer, 5)
    await step(platform, deliverer, 2)
    expect(receiver.events().map((e) => e.type)).toEqual(['call.started'])
    await step(platform, deliverer, 5)
    expect(receiver.events().map((e) => e.type)).toEqual([
      'call.started',
      'call.started',
      'call.ended',
      'transcript.ready',
    ])
  })

  it('sends a delivery again on redelivery, with the same webhook-id and body', async () => {
    const { platform, key, accountId, agent, deliverer, receiver, secret } = await setup()
    await send(platform, 'PATCH', `/v1/agents/${agent.id}`, {
      key,
      body: { webhook_events: ['call.started'] },
    })
    await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, { body: { agent_id: agent.id } })
    await step(platform, deliverer, 5)
    const [delivery] = await deliveries(platform, accountId)
    const again = await send(platform, 'POST', `/_mock/webhook-deliveries/${delivery.id}/redeliver`)
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ id: delivery.id, status: 'pending' })
    await step(platform, deliverer, 0)
    expect(receiver.received).toHaveLength(2)
    const [first, second] = receiver.received
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id'])
    expect(second?.body).toBe(first?.body)
    expect(() =>
      new Webhook(secret).verify(second?.body ?? '', second?.headers as Record<string, string>),
    ).not.toThrow()
    const [after] = await deliveries(platform, accountId)
    expect(after.attempts).toHaveLength(2)
    expect(after.status).toBe('succeeded')
  })

  it('answers 404 naming delivery_id for an unknown delivery', async () => {
    const { platform } = await frozenPlatform()
    const answer = await send(platform, 'POST', '/_mock/webhook-deliveries/whd_unknown123/redeliver')
    expect(answer.status).toBe(404)
    expect(answer.body.error.param).toBe('delivery_id')
  })
})

describe('the signing secret', () => {
  it('signs with the new secret only once it is rotated', async () => {
    const { platform, key, accountId, agent, deliverer, receiver, secret } = await setup()
    await send(platform, 'PATCH', `/v1/agents/${agent.id}`, {
      key,
      body: { webhook_events: ['call.started'] },
    })
    await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, { body: { agent_id: agent.id } })
    await step(platform, deliverer, 5)
    const rotated = await send(platform, 'POST', `/_mock/accounts/${accountId}/webhook-secret`)
    expect(rotated.body.rotated).toBe(true)
    expect(rotated.body.value).not.toBe(secret)
    await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, { body: { agent_id: agent.id } })
    await step(platform, deliverer, 5)
    const [, second] = receiver.received
    const headers = second?.headers as Record<string, string>
    expect(() => new Webhook(secret).verify(second?.body ?? '', headers)).toThrow()
    expect(() => new Webhook(rotated.body.value).verify(second?.body ?? '', headers)).not.toThrow()
    expect(second?.headers['webhook-signature']).not.toBe(receiver.received[0]?.headers['webhook-signature'])
  })

  it('sends nothing once revoked, and the delivery says why', async () => {
    const { platform, key, accountId, agent, deliverer, receiver } = await setup()
    await send(platform, 'PATCH', `/v1/agents/${agent.id}`, {
      key,
      body: { webhook_events: ['call.started'] },
    })
    expect((await send(platform, 'DELETE', `/_mock/accounts/${accountId}/webhook-secret`)).status).toBe(200)
    // None is an answer, not an error: a page that shows the secret's state asks without a 404 in its console.
    const none = await send(platform, 'GET', `/_mock/accounts/${accountId}/webhook-secret`)
    expect(none.status).toBe(200)
    expect(none.body).toEqual({
      object: 'webhook_secret',
      account_id: accountId,
      exists: false,
      created_at: null,
    })
    await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, { body: { agent_id: agent.id } })
    await step(platform, deliverer, 5)
    expect(receiver.received).toHaveLength(0)
    const [delivery] = await deliveries(platform, accountId)
    expect(delivery.status).toBe('failed')
    expect(delivery.attempts[0].error).toMatch(/no webhook signing secret/)
  })

  it('shows the value only when created: never in GET, the journal, logs or error bodies', async () => {
    const { platform, key, accountId, agent, deliverer, lines, secret } = await setup()
    const shown = await send(platform, 'GET', `/_mock/accounts/${accountId}/webhook-secret`)
    expect(shown.status).toBe(200)
    expect(shown.body).toMatchObject({ exists: true, created_at: expect.any(String) })
    expect(JSON.stringify(shown.body)).not.toContain(secret.slice(6, 20))
    // A secret pasted where it does not belong is not echoed back.
    const misplaced = await send(platform, 'GET', `/v1/agents/${secret}`, { key })
    const unknownAccount = await send(platform, 'POST', `/_mock/accounts/${secret}/webhook-secret`)
    await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, { body: { agent_id: agent.id } })
    for (const seconds of [5, 60, 120]) await step(platform, deliverer, seconds)
    const journal = await send(platform, 'GET', '/_mock/journal?limit=100')
    const deliveryLog = await send(platform, 'GET', `/_mock/accounts/${accountId}/webhook-deliveries`)
    const secretBytes = secret.slice('whsec_'.length)
    for (const text of [
      JSON.stringify(misplaced.body),
      JSON.stringify(unknownAccount.body),
      JSON.stringify(journal.body),
      JSON.stringify(deliveryLog.body),
      lines.join('\n'),
    ])
      expect(text).not.toContain(secretBytes)
    expect(lines.length).toBeGreaterThan(0)
  })
})

describe('webhook destinations', () => {
  it('never contacts a host outside the allowed ones, and records why', async () => {
    const { platform, accountId, agent, deliverer, receiver } = await setup([200], {
      url: 'http://hooks.example.com/voice',
    })
    await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, { body: { agent_id: agent.id } })
    for (const seconds of [5, 60, 120, 3600]) await step(platform, deliverer, seconds)
    expect(receiver.received).toHaveLength(0)
    const log = await deliveries(platform, accountId)
    expect(log.length).toBe(4)
    for (const delivery of log) {
      expect(delivery.status).toBe('failed')
      expect(delivery.attempts).toHaveLength(1)
      expect(delivery.attempts[0]).toMatchObject({ status_code: null, duration_ms: null })
      expect(delivery.attempts[0].error).toMatch(
        /hooks\.example\.com is not a loopback address.*--webhook-hosts/,
      )
    }
  })

  it.each([
    ['http://127.0.0.1:4000/hooks', true],
    ['http://127.9.9.9/hooks', true],
    ['http://localhost:4000/hooks', true],
    ['http://[::1]:4000/hooks', true],
    ['http://[::ffff:127.0.0.1]:4000/hooks', true],
    ['http://[0:0:0:0:0:ffff:127.0.0.2]/hooks', true],
    ['http://[::ffff:7f00:1]/hooks', true],
    ['http://[::ffff:10.0.0.1]/hooks', false],
    ['http://[::2]/hooks', false],
    ['http://10.0.0.1/hooks', false],
    ['http://hooks.example.com/hooks', false],
  ])('treats %s as a loopback destination: %s', (url, allowed) => {
    const refusal = createDestinationPolicy()(url)
    if (allowed) expect(refusal).toBeUndefined()
    else expect(refusal).toMatch(/is not a loopback address/)
  })

  it('delivers to a receiver reached by its IPv4-mapped IPv6 address ([::ffff:127.0.0.1])', async () => {
    const receiver = await startReceiver()
    cleanup.push(receiver.close)
    const { platform, accountId, agent, deliverer } = await setup([200], {
      url: receiver.url.replace('127.0.0.1', '[::ffff:127.0.0.1]'),
    })
    await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, { body: { agent_id: agent.id } })
    await step(platform, deliverer, 5)
    expect(receiver.events().map((event) => event.type)).toEqual(['call.started'])
  })

  it('contacts a host listed in --webhook-hosts', async () => {
    const receiver = await startReceiver()
    const url = receiver.url.replace('127.0.0.1', 'receiver.localtest')
    const { platform, accountId, agent, deliverer } = await setup([200], {
      url,
      hosts: ['receiver.localtest'],
    })
    cleanup.push(receiver.close)
    await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, { body: { agent_id: agent.id } })
    await step(platform, deliverer, 5)
    const [delivery] = await deliveries(platform, accountId)
    // The name does not resolve here: the attempt was made (and failed to connect), not refused.
    expect(delivery.attempts[0].error).toMatch(/could not connect/)
  })
})

/** A receiver that accepts each request and never answers (until closed). */
async function startHangingReceiver() {
  let requests = 0
  const server = createServer(() => {
    requests++
  })
  const { port } = await listen(server, 0, '127.0.0.1')
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  return { url: `http://127.0.0.1:${port}/hang`, requests: () => requests, close }
}

/** A new account with a signing secret and one agent sending every event to `url`. */
async function accountWithAgent(platform: MockPlatform, url: string) {
  const account = await send(platform, 'POST', '/_mock/accounts', {
    body: { plan: 'enterprise', limits: { hourly: 1_000_000, burst: 1_000_000 } },
  })
  const key = await send(platform, 'POST', `/_mock/accounts/${account.body.id}/keys`, {
    body: { type: 'secret', name: 'webhooks' },
  })
  await send(platform, 'POST', `/_mock/accounts/${account.body.id}/webhook-secret`)
  return { accountId: account.body.id as string, agentId: await agentTo(platform, key.body.value, url) }
}

async function agentTo(platform: MockPlatform, key: string, url: string): Promise<string> {
  const agent = await send(platform, 'POST', '/v1/agents', {
    key,
    body: {
      name: 'Webhooks',
      voice: { provider: 'elevenlabs', voice_id: 'rachel' },
      llm: { provider: 'openai', model: 'gpt-4o' },
      webhook_url: url,
      webhook_events: ['call.started'],
    },
  })
  expect(agent.status).toBe(201)
  return agent.body.id
}

describe('a receiver that accepts and never answers', () => {
  /**
   * Eight calls whose `call.started` goes to the stuck receivers in turn, then one to a healthy receiver, all
   * due at once:
   * the healthy one is answered within 2 s (a stuck attempt holds its slot for 10 s).
   */
  async function healthyWhileStuck(stuck: { url: string; close(): Promise<void> }[], sameAccount: boolean) {
    const { platform, key, accountId } = await frozenPlatform({ webhookDeliveries: true })
    const deliverer = createWebhookDeliverer(platform)
    cleanup.push(
      () => platform.close(),
      () => deliverer.stop(),
    )
    await send(platform, 'POST', `/_mock/accounts/${accountId}/webhook-secret`)
    await send(platform, 'PATCH', `/_mock/accounts/${accountId}`, {
      body: { limits: { hourly: 1_000_000, burst: 1_000_000 } },
    })
    const healthy = await startReceiver()
    // Closed before the deliverer stops: it waits for the attempts under way.
    cleanup.push(healthy.close, ...stuck.map((receiver) => receiver.close))
    for (let i = 0; i < 8; i++) {
      const url = stuck[i % stuck.length]?.url ?? ''
      const agentId = await agentTo(platform, key, url)
      const call = await send(platform, 'POST', `/_mock/accounts/${accountId}/calls`, {
        body: { agent_id: agentId },
      })
      expect(call.status, `call ${i}`).toBe(201)
    }
    const target = sameAccount
      ? { accountId, agentId: await agentTo(platform, key, healthy.url) }
      : await accountWithAgent(platform, healthy.url)
    await send(platform, 'POST', `/_mock/accounts/${target.accountId}/calls`, {
      body: { agent_id: target.agentId },
    })
    // Each call rings 4 s, then connects: its `call.started` falls due.
    await advance(platform, 5)
    const started = performance.now()
    void deliverer.deliverDue()
    await eventually(() => healthy.received.length === 1, 2_000, 'the healthy receiver to get its event')
    return performance.now() - started
  }

  it.each([
    ['another account, one stuck receiver', false, 1],
    ['the same account, one stuck receiver', true, 1],
    ['another account, eight stuck receivers of one account', false, 8],
  ])(
    'does not hold back a healthy receiver (%s)',
    async (_case, sameAccount, receivers) => {
      const stuck = await Promise.all(Array.from({ length: receivers }, () => startHangingReceiver()))
      const ms = await healthyWhileStuck(stuck, sameAccount)
      console.log(`healthy receiver answered after ${Math.round(ms)} ms`)
      expect(ms).toBeLessThan(2_000)
      expect(stuck.reduce((sum, receiver) => sum + receiver.requests(), 0)).toBeGreaterThan(0)
    },
    15_000,
  )
})

import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REDIS_TOPOLOGIES, redisAvailable, type SharedRedis } from '../stores/support/shared-redis.ts'
import { http, type MockProcess, startMockProcess } from './mock-process.ts'
import { eventually, startReceiver } from './receiver.ts'

const each = redisAvailable() ? describe.each(REDIS_TOPOLOGIES) : describe.skip.each(REDIS_TOPOLOGIES)

each('calls and webhooks with two mock processes on %s', (_name, startRedis) => {
  let redis: SharedRedis
  let a: MockProcess
  let b: MockProcess
  let receiver: Awaited<ReturnType<typeof startReceiver>>

  beforeAll(async () => {
    redis = await startRedis()
    a = await startMockProcess(['--quiet', '--store', redis.url])
    // The other process is the command users run (bin/voice-api-kit.js, the build).
    b = await startMockProcess(['--quiet', '--store', redis.url], { built: true })
    receiver = await startReceiver()
  }, 60_000)
  afterAll(async () => {
    await a?.stop()
    await b?.stop()
    await receiver?.close()
    await redis?.stop()
  })

  it('shows a call started through one process progressing through the other, and delivers each event once', async () => {
    const key = a.keys.secret_key
    const account = a.keys.account_id
    const control = (mock: MockProcess) => mock.keys.control_url
    const secret = await http('POST', `${control(a)}/accounts/${account}/webhook-secret`)
    const agent = (await http('GET', `${b.baseUrl}/agents?limit=1`, undefined, key)).body.data[0]
    const events = ['call.started', 'call.ended', 'transcript.ready', 'call.analyzed']
    await http(
      'PATCH',
      `${b.baseUrl}/agents/${agent.id}`,
      { webhook_url: receiver.url, webhook_events: events },
      key,
    )

    const call = await http('POST', `${control(a)}/accounts/${account}/calls`, {
      agent_id: agent.id,
      ring_seconds: 1,
      // Long enough for the conversation's first line: a call in which nothing was said has no transcript.ready.
      duration_seconds: 5,
    })
    expect(call.status).toBe(201)
    // Polled a few times a second (the demo account's burst window allows 50 requests a minute).
    const seenThroughB = new Set<string>()
    for (let i = 0; i < 40 && !seenThroughB.has('completed'); i++) {
      const log = await http('GET', `${b.baseUrl}/call-logs/${call.body.id}`, undefined, key)
      seenThroughB.add(log.body.status)
      await new Promise((resolve) => setTimeout(resolve, 300))
    }
    expect(seenThroughB.has('completed')).toBe(true)
    expect(seenThroughB.has('ringing') || seenThroughB.has('in_progress')).toBe(true)

    // The analysis comes 120 s after the end: moved there through the second process.
    await http('POST', `${control(b)}/clock/advance`, { seconds: 130 })
    await eventually(() => receiver.received.length >= 4, 10_000, 'four webhooks')
    // Both processes tick and deliver: give a duplicate the time to show up.
    await new Promise((resolve) => setTimeout(resolve, 2500))
    expect(receiver.events().map((e) => e.type)).toEqual(events)
    const verifier = new Webhook(secret.body.value)
    for (const { body, headers } of receiver.received)
      expect(() => verifier.verify(body, headers as Record<string, string>)).not.toThrow()
    const deliveries = await http('GET', `${control(b)}/accounts/${account}/webhook-deliveries`)
    expect(deliveries.body.data).toHaveLength(4)
    for (const delivery of deliveries.body.data) expect(delivery.attempts).toHaveLength(1)
  }, 60_000)
})

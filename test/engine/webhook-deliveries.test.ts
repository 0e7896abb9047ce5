import { describe, expect, it } from 'vitest'
import { createClock } from '../../mocks/engine/clock.ts'
import type { Agent, CallLog } from '../../mocks/engine/resources/types.ts'
import { createState } from '../../mocks/engine/state/state.ts'
import { callEvent } from '../../mocks/engine/webhooks/call-event.ts'
import { MAX_DELIVERIES_PER_ACCOUNT } from '../../mocks/engine/webhooks/retry-schedule.ts'
import { createSigningSecrets } from '../../mocks/engine/webhooks/signing-secrets.ts'
import { createWebhookDeliveries } from '../../mocks/engine/webhooks/webhook-deliveries.ts'

const T0 = Date.UTC(2026, 2, 12, 14, 0, 0)
const agent = {
  id: 'agt_1',
  webhook_url: 'http://127.0.0.1:9/hook',
  webhook_events: ['call.started', 'call.ended'],
} as unknown as Agent
const log = (id: string) => ({ id, status: 'in_progress' }) as unknown as CallLog

function setup() {
  let real = T0
  const clock = createClock({ realNow: () => real })
  const state = createState()
  const secrets = createSigningSecrets(state)
  const deliveries = createWebhookDeliveries(state, clock, secrets)
  secrets.create('usr_1', clock.iso())
  const claim = (claimant: string, realNow = real) =>
    deliveries.claimDue({ claimant, realNow, leaseMs: 30_000, max: 10 })
  return { clock, deliveries, claim, setReal: (ms: number) => (real = ms) }
}

describe('webhook deliveries (engine)', () => {
  it('records a delivery only for an event the agent subscribes to', () => {
    const { deliveries } = setup()
    deliveries.enqueue(callEvent('call.started', log('call_1'), T0), agent, 'usr_1', 'call_1', T0)
    deliveries.enqueue(callEvent('call.analyzed', log('call_1'), T0), agent, 'usr_1', 'call_1', T0)
    deliveries.enqueue(
      callEvent('call.started', log('call_2'), T0),
      { ...agent, webhook_url: null },
      'usr_1',
      'call_2',
      T0,
    )
    expect(deliveries.log.list('usr_1').map((d) => d.event_type)).toEqual(['call.started'])
  })

  it('lets one claimant have an attempt until its lease runs out (real time, not the mock clock)', () => {
    const { deliveries, claim, clock } = setup()
    deliveries.enqueue(callEvent('call.started', log('call_1'), T0), agent, 'usr_1', 'call_1', T0)
    expect(claim('a')).toHaveLength(1)
    expect(claim('b')).toHaveLength(0)
    clock.advance(3600)
    expect(claim('b', T0 + 29_999)).toHaveLength(0)
    expect(claim('b', T0 + 30_000)).toHaveLength(1)
    // The first claimant's late outcome is ignored; the second's is recorded.
    deliveries.complete({
      delivery_id: deliveries.log.list('usr_1')[0]?.id ?? '',
      claimant: 'a',
      status_code: 200,
      duration_ms: 1,
      error: null,
    })
    expect(deliveries.log.list('usr_1')[0]?.attempts).toHaveLength(0)
    deliveries.complete({
      delivery_id: deliveries.log.list('usr_1')[0]?.id ?? '',
      claimant: 'b',
      status_code: 200,
      duration_ms: 1,
      error: null,
    })
    expect(deliveries.log.list('usr_1')[0]).toMatchObject({
      status: 'succeeded',
      attempts: [{ number: 1, status_code: 200 }],
    })
  })

  it('is due when the mock clock reaches the retry time, not a moment before', () => {
    const { deliveries, claim, clock } = setup()
    deliveries.enqueue(callEvent('call.started', log('call_1'), T0), agent, 'usr_1', 'call_1', T0)
    const [attempt] = claim('a')
    deliveries.complete({
      delivery_id: attempt?.delivery_id ?? '',
      claimant: 'a',
      status_code: 500,
      duration_ms: 3,
      error: 'answered 500',
    })
    expect(deliveries.nextDueAt(T0)).toBe(T0 + 5000)
    clock.advance(4.999)
    expect(claim('a')).toHaveLength(0)
    clock.advance(0.001)
    expect(claim('a')).toHaveLength(1)
  })

  it('keeps the newest deliveries of an account past the bound, pending ones before finished ones', () => {
    const { deliveries, claim } = setup()
    deliveries.enqueue(callEvent('call.started', log('call_0'), T0), agent, 'usr_1', 'call_0', T0)
    const oldestPending = deliveries.log.list('usr_1')[0]?.id
    for (let i = 1; i <= MAX_DELIVERIES_PER_ACCOUNT; i++)
      deliveries.enqueue(callEvent('call.started', log(`call_${i}`), T0), agent, 'usr_1', `call_${i}`, T0)
    expect(deliveries.log.list('usr_1')).toHaveLength(MAX_DELIVERIES_PER_ACCOUNT)
    // Nothing finished yet: the oldest (pending) went.
    expect(deliveries.log.find(oldestPending ?? '')).toBeUndefined()
    const claimed = claim('a')
    for (const attempt of claimed)
      deliveries.complete({
        delivery_id: attempt.delivery_id,
        claimant: 'a',
        status_code: 200,
        duration_ms: 1,
        error: null,
      })
    const finished = claimed[claimed.length - 1]?.delivery_id ?? ''
    const firstPending =
      deliveries.log
        .list('usr_1')
        .filter((d) => d.status === 'pending')
        .at(-1)?.id ?? ''
    deliveries.enqueue(callEvent('call.started', log('call_new'), T0), agent, 'usr_1', 'call_new', T0)
    expect(deliveries.log.list('usr_1')).toHaveLength(MAX_DELIVERIES_PER_ACCOUNT)
    expect(deliveries.log.find(firstPending)).toBeDefined()
    expect(deliveries.log.find(claimed[0]?.delivery_id ?? '')).toBeUndefined()
    expect(deliveries.log.find(finished)).toBeDefined()
  })
})

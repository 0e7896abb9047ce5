/**
 * Shows that `deleted-call-log-still-in-analytics` (the fault of held-out-3 the suite misses) is live: the same
 * sequence against the correct engine and against the faulty one, the analytics totals after a call log was
 * deleted (`npx tsx scripts/fault-sets/held-out-3-live.ts`).
 */
import type { EngineResponse } from '../../mocks/engine/types.ts'
import { createMockPlatform } from '../../mocks/platform.ts'
import { faults } from '../../test/fault-sets/held-out-3.ts'
import { type Fault, faultyHandler } from '../../test/reliability/support/faulty-handler.ts'

async function run(fault: Fault) {
  const platform = await createMockPlatform()
  const handler = faultyHandler(platform, fault)
  let key = ''
  const call = async (method: string, url: string, body?: unknown) =>
    (await handler.handle({
      method,
      url,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
      baseUrl: 'http://live.test/v1',
      clientIp: '127.0.0.1',
      // biome-ignore lint/suspicious/noExplicitAny: a demonstration reads the answers loosely
    })) as EngineResponse & { body: Record<string, any> }
  const account = (await call('POST', '/_mock/accounts', { plan: 'pro' })).body.id
  key = (await call('POST', `/_mock/accounts/${account}/keys`, { type: 'secret', name: 'live' })).body.value
  const agent = await call('POST', '/v1/agents', {
    name: 'a',
    voice: { provider: 'openai', voice_id: 'x' },
    llm: { provider: 'openai', model: 'm' },
  })
  for (let i = 0; i < 3; i++)
    await call('POST', `/_mock/accounts/${account}/calls`, { agent_id: agent.body.id })
  await call('POST', '/_mock/clock/advance', { seconds: 400 })
  const logs = await call('GET', '/v1/call-logs')
  await call('DELETE', `/v1/call-logs/${logs.body.data[0].id}`)
  const after = await call('GET', '/v1/analytics/calls?granularity=total')
  await (platform as { close?: () => Promise<void> }).close?.()
  return after.body.totals.call_count
}

const fault = faults.find((each) => each.name === 'deleted-call-log-still-in-analytics')
if (!fault) throw new Error('no such fault')
console.log(
  `3 calls, 1 deleted: call_count correct engine ${await run({})}, faulty ${await run(fault.make())}`,
)

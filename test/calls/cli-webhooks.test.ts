import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { afterEach, describe, expect, it } from 'vitest'
import { http, type MockProcess, runCli, startMockProcess } from './mock-process.ts'
import { eventually, startReceiver } from './receiver.ts'

const stops: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop()
})

async function pointFirstAgentAt(mock: MockProcess, url: string, events: string[]) {
  const key = mock.keys.secret_key
  const agent = (await http('GET', `${mock.baseUrl}/agents?limit=1`, undefined, key)).body.data[0]
  const patched = await http(
    'PATCH',
    `${mock.baseUrl}/agents/${agent.id}`,
    { webhook_url: url, webhook_events: events },
    key,
  )
  expect(patched.status).toBe(200)
  return agent.id as string
}

describe('voice-api-kit mock: calls and webhooks in real time', () => {
  it('moves a call and delivers its signed events as real time passes, without any clock advance', async () => {
    // The command users run (the build in dist/).
    const mock = await startMockProcess([], { built: true })
    const receiver = await startReceiver()
    stops.push(mock.stop, receiver.close)
    const control = mock.keys.control_url
    const account = mock.keys.account_id
    const secret = await http('POST', `${control}/accounts/${account}/webhook-secret`)
    const agentId = await pointFirstAgentAt(mock, receiver.url, [
      'call.started',
      'call.ended',
      'transcript.ready',
    ])
    const call = await http('POST', `${control}/accounts/${account}/calls`, {
      agent_id: agentId,
      ring_seconds: 0.5,
      // Long enough for the conversation's first line (it may start after a second or two): a call in which
      // nothing was said has no transcript.ready, which made this test fail now and then.
      duration_seconds: 5,
    })
    expect(call.status).toBe(201)
    // Real time: about 7 s on a quiet machine; room for a loaded CI machine. A timeout says what the mock did.
    await eventually(() => receiver.received.length >= 3, 40_000, 'three webhooks').catch(async (error) => {
      const deliveries = await http('GET', `${control}/accounts/${account}/webhook-deliveries`)
      const log = await http(
        'GET',
        `${mock.baseUrl}/call-logs/${call.body.id}`,
        undefined,
        mock.keys.secret_key,
      )
      throw new Error(
        `${(error as Error).message}: ${receiver.received.length} received; call ${log.body.status}; deliveries ${JSON.stringify(deliveries.body).slice(0, 1500)}; mock output: ${mock.output().slice(-1500)}`,
      )
    })
    expect(receiver.events().map((e) => e.type)).toEqual(['call.started', 'call.ended', 'transcript.ready'])
    const verifier = new Webhook(secret.body.value)
    for (const { body, headers } of receiver.received)
      expect(() => verifier.verify(body, headers as Record<string, string>)).not.toThrow()
    const log = await http(
      'GET',
      `${mock.baseUrl}/call-logs/${call.body.id}`,
      undefined,
      mock.keys.secret_key,
    )
    expect(log.body.status).toBe('completed')
    // The secret never reaches the process's output.
    expect(mock.output()).not.toContain(secret.body.value.slice(6))
    expect(mock.output()).toMatch(/webhook whd_\w+ attempt 1 -> http:\/\/127\.0\.0\.1:\d+\/webhooks: 200/)
  }, 60_000)

  it('runs what fell due right after a clock advance', async () => {
    const mock = await startMockProcess(['--quiet'])
    const receiver = await startReceiver()
    stops.push(mock.stop, receiver.close)
    const control = mock.keys.control_url
    const account = mock.keys.account_id
    await http('POST', `${control}/accounts/${account}/webhook-secret`)
    const agentId = await pointFirstAgentAt(mock, receiver.url, ['call.analyzed'])
    await http('POST', `${control}/accounts/${account}/calls`, { agent_id: agentId })
    await http('POST', `${control}/clock/advance`, { seconds: 200 })
    await eventually(() => receiver.received.length >= 1, 5000, 'call.analyzed')
    expect(receiver.events().map((e) => e.type)).toEqual(['call.analyzed'])
  })

  it('keeps a call under way in the state file: after a restart it goes on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vak-calls-state-'))
    const args = ['--quiet', '--state-file', join(dir, 'state.json')]
    const keysFile = join(dir, 'keys.json')
    const first = await startMockProcess(args, { keysFile })
    stops.push(first.stop)
    const key = first.keys.secret_key
    const agent = (await http('GET', `${first.baseUrl}/agents?limit=1`, undefined, key)).body.data[0]
    const call = await http('POST', `${first.keys.control_url}/accounts/${first.keys.account_id}/calls`, {
      agent_id: agent.id,
      ring_seconds: 300,
    })
    // It rings 1 s after it was queued: move the clock past that rather than count on a slow restart.
    await http('POST', `${first.keys.control_url}/clock/advance`, { seconds: 2 })
    expect(
      (await http('GET', `${first.baseUrl}/call-logs/${call.body.id}`, undefined, key)).body.status,
    ).toBe('ringing')
    await first.stop()
    const second = await startMockProcess(args, { keysFile })
    stops.push(second.stop)
    expect(second.keys.account_id).toBe(first.keys.account_id)
    const before = await http('GET', `${second.baseUrl}/call-logs/${call.body.id}`, undefined, key)
    expect(before.body.status).toBe('ringing')
    await http('POST', `${second.keys.control_url}/clock/advance`, { seconds: 400 })
    const after = await http('GET', `${second.baseUrl}/call-logs/${call.body.id}`, undefined, key)
    expect(after.body.status).toBe('completed')
  })

  it('refuses a malformed --webhook-hosts with a one-line usage error (exit 2)', async () => {
    const run = runCli(['mock', '--port', '0', '--webhook-hosts', 'http://a.example:80'])
    expect(await run.exit).toBe(2)
    expect(run.output().trim().split('\n')).toHaveLength(1)
    expect(run.output()).toMatch(/--webhook-hosts/)
  })
})

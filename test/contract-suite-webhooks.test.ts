import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseMockFlags, type RunningMock, startMock } from '../cli/mock/mock-command.ts'
import { runChecks } from '../contracts/index.ts'
import { defineContractSuite } from '../contracts/vitest/index.ts'
import { createMockApi } from '../mocks/msw/create-mock-api.ts'

describe('the webhooks area against the standalone mock (voice-api-kit mock)', () => {
  let mock: RunningMock
  let baseUrl = ''
  beforeAll(async () => {
    const flags = parseMockFlags(['--port', '0', '--quiet'])
    if (flags === 'help') throw new Error('unreachable')
    mock = await startMock(flags, () => {})
    baseUrl = mock.baseUrl
  })
  afterAll(() => mock?.close())
  defineContractSuite(() => ({ baseUrl, provision: 'mock', destructive: true }), { areas: ['webhooks'] })
})

describe('the webhooks area elsewhere', () => {
  // A loopback URL, answered in-process by MSW: the area gets as far as asking for the deliveries.
  const baseUrl = 'http://127.0.0.1:9/v1'
  let server: ReturnType<typeof setupServer>
  let secretKey = ''
  beforeAll(async () => {
    const api = await createMockApi({ baseUrl })
    secretKey = api.secretKey
    server = setupServer(...api.handlers)
    server.listen({ onUnhandledRequest: 'bypass' })
  })
  afterAll(() => server.close())

  it('is not applicable to an in-process mock, with the reason, except the call stages read through v1', async () => {
    const { outcomes } = await runChecks({
      baseUrl,
      provision: 'mock',
      destructive: true,
      areas: ['webhooks'],
    })
    expect(outcomes.map((o) => [o.check.id, o.status])).toEqual([
      ['webhooks/call-events/delivered', 'not-applicable'],
      ['webhooks/call-events/retried', 'not-applicable'],
      ['webhooks/call-events/stages', 'passed'],
      ['webhooks/call-events/retry-schedule', 'not-applicable'],
      ['webhooks/call-events/in-order', 'not-applicable'],
      ['webhooks/call-events/unanswered', 'not-applicable'],
    ])
    expect(outcomes[0]?.reason).toMatch(/in-process.*voice-api-kit mock/)
  })

  it('is skipped without --provision mock, with the reason', async () => {
    const { outcomes } = await runChecks({
      baseUrl,
      secretKey,
      destructive: true,
      areas: ['webhooks'],
    })
    expect(outcomes.map((o) => o.status)).toEqual(Array(6).fill('skipped'))
    expect(outcomes[0]?.reason).toMatch(/--provision mock/)
  })
})

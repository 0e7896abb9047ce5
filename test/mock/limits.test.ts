import { beforeEach, describe, expect, it } from 'vitest'
import { LIMITS } from '../../mocks/engine/limits.ts'
import type { EngineRequest } from '../../mocks/engine/types.ts'
import { createMockPlatform, type MockPlatform } from '../../mocks/platform.ts'

/** Every collection a client can grow has a documented bound: past it 409 `limit_reached`, nothing created. */
describe('collection limits', () => {
  let platform: MockPlatform
  let key: string

  beforeEach(async () => {
    platform = await createMockPlatform({ seed: 9, seedSize: { agents: 1, callLogs: 0, teamMembers: 0 } })
    key = platform.demo.secretKey ?? ''
    await send('PATCH', `/_mock/accounts/${platform.demo.account.id}`, {
      limits: { hourly: 100_000_000, burst: 100_000_000 },
    })
  })

  function send(method: string, url: string, body?: unknown, withKey = false) {
    const request: EngineRequest = {
      method,
      url,
      headers: { 'content-type': 'application/json', ...(withKey ? { authorization: `Bearer ${key}` } : {}) },
      body: body === undefined ? null : JSON.stringify(body),
    }
    return platform.handle(request)
  }

  /** Creates until the bound, then expects one more to be refused with nothing created. */
  async function fillThenRefuse(
    count: () => number,
    limit: number,
    create: (i: number) => Promise<{ status: number; body: unknown }>,
  ) {
    for (let i = count(); i < limit; i++) expect((await create(i)).status).toBe(201)
    expect(count()).toBe(limit)
    const refused = await create(limit)
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({ error: { type: 'conflict_error', code: 'limit_reached' } })
    expect(count()).toBe(limit)
  }

  it(`holds at most ${LIMITS.accounts} accounts`, async () => {
    await fillThenRefuse(
      () => platform.accounts.size(),
      LIMITS.accounts,
      () => send('POST', '/_mock/accounts', { plan: 'free' }),
    )
  }, 60_000)

  it(`holds at most ${LIMITS.keysPerAccount} keys per account`, async () => {
    const account = platform.demo.account.id
    await fillThenRefuse(
      () => platform.keys.list(account).length,
      LIMITS.keysPerAccount,
      (i) => send('POST', `/_mock/accounts/${account}/keys`, { type: 'secret', name: `key ${i}` }),
    )
  })

  it(`holds at most ${LIMITS.agentsPerAccount} agents per account`, async () => {
    const body = {
      name: 'Agent',
      voice: { provider: 'elevenlabs', voice_id: 'rachel' },
      llm: { provider: 'openai', model: 'gpt-4o' },
    }
    let agents = 1
    await fillThenRefuse(
      () => agents,
      LIMITS.agentsPerAccount,
      async () => {
        const answer = await send('POST', '/v1/agents', body, true)
        if (answer.status === 201) agents++
        return answer
      },
    )
  }, 60_000)

  it(`holds at most ${LIMITS.teamMembersPerAccount} team members per account`, async () => {
    let members = 1
    await fillThenRefuse(
      () => members,
      LIMITS.teamMembersPerAccount,
      async (i) => {
        const answer = await send(
          'POST',
          '/v1/team-members',
          { email: `m${i}@example.com`, role: 'viewer' },
          true,
        )
        if (answer.status === 201) members++
        return answer
      },
    )
  })

  it(`holds at most ${LIMITS.scenarios} scenarios`, async () => {
    let scenarios = 0
    await fillThenRefuse(
      () => scenarios,
      LIMITS.scenarios,
      async () => {
        const answer = await send('POST', '/_mock/scenarios', {
          operation: 'getUser',
          delay: { type: 'fixed', ms: 1 },
        })
        if (answer.status === 201) scenarios++
        return answer
      },
    )
    const listed = await send('GET', '/_mock/scenarios?limit=1')
    expect(listed.status).toBe(200)
  }, 60_000)
})

import { beforeEach, describe, expect, it } from 'vitest'
import { readRateLimitHeaders } from '../../contracts/http/rate-limit-headers.ts'
import { createEngine } from '../../mocks/engine/create-engine.ts'
import { contractDocuments } from '../../mocks/platform.ts'
import { answerProblems, v1Operations } from './support/contract-answer.ts'
import { AGENT_BODY, type ScenarioHarness, scenarioHarness } from './support/scenario-harness.ts'

let h: ScenarioHarness
beforeEach(async () => {
  h = await scenarioHarness()
})

/** The code an injected status carries: the contract's own for the status (and operation). */
function expectedCode(operationId: string, path: string, status: number): string {
  const conflicts: Record<string, string> = {
    inviteTeamMember: 'member_already_exists',
    updateTeamMember: 'owner_role_immutable',
    removeTeamMember: 'cannot_remove_owner',
  }
  const codes: Record<number, string> = {
    400: 'invalid_parameter',
    401: 'invalid_api_key',
    403: operationId === 'getUser' ? 'key_restricted' : 'insufficient_permissions',
    404: path.includes('{') ? 'resource_not_found' : 'route_not_found',
    405: 'method_not_allowed',
    409: conflicts[operationId] ?? 'idempotency_key_reused',
    413: 'payload_too_large',
    415: 'unsupported_media_type',
    422: 'validation_failed',
    429: 'rate_limit_exceeded',
    500: 'internal_error',
    502: 'bad_gateway',
    503: 'service_unavailable',
    504: 'gateway_timeout',
  }
  return codes[status] ?? '(no code expected)'
}

const INJECTABLE = (statuses: number[]) =>
  [...new Set([...statuses.filter((s) => s >= 400), 500, 502, 503, 504])].sort((a, b) => a - b)

/** A request for an operation: any id in the path and an empty body do, since a scenario answers first. */
function requestFor(operation: (typeof v1Operations)[number]) {
  const path = operation.path.replace(/\{[^}]+\}/g, 'x')
  const body = operation.method === 'POST' || operation.method === 'PATCH' ? {} : undefined
  return { method: operation.method, path, body }
}

/** Everything a client can read of the account's data. */
async function dataOf(harness: ScenarioHarness) {
  const read = async (path: string) => (await harness.send('GET', `${path}?limit=100`)).body.data
  return {
    agents: await read('/agents'),
    callLogs: await read('/call-logs'),
    members: await read('/team-members'),
    integrations: await read('/integrations'),
  }
}

describe('a scenario with a status', () => {
  it.each(v1Operations.map((o) => [o.operationId, o] as const))(
    'answers %s with each status it may inject, as the contract documents it',
    async (_id, operation) => {
      const { method, path, body } = requestFor(operation)
      for (const status of INJECTABLE(operation.statuses)) {
        const scenario = await h.addScenario({ operation: operation.operationId, status, times: 1 })
        const response = await h.send(method, path, { body })
        const where = `${operation.operationId} ${status}`
        expect(response.status, where).toBe(status)
        expect(response.headers['mock-scenario'], where).toBe(scenario.id)
        expect(answerProblems(operation.operationId, status, response.body), where).toEqual([])
        const error = (response.body as { error: Record<string, unknown> }).error
        expect(error.message, where).toContain(scenario.id)
        expect(error.request_id, where).toBe(status === 401 ? undefined : response.headers['request-id'])
        expect(response.headers.ratelimit, where).toMatch(/"hourly";r=\d+;t=\d+, "burst";r=\d+;t=\d+/)
        if (status === 401) expect(response.headers['www-authenticate'], where).toMatch(/^Bearer /)
        if (status === 405) expect(response.headers.allow?.split(', '), where).toContain(operation.method)
        if (status === 503) expect(response.headers['retry-after'], where).toBe('1')
        if (status === 405) {
          const methods = v1Operations.filter((o) => o.path === operation.path).map((o) => o.method)
          expect(response.headers.allow?.split(', ').sort(), where).toEqual(methods.sort())
        }
        expect(error.code, where).toBe(expectedCode(operation.operationId, operation.path, status))
        if (status === 404 && operation.path.includes('{'))
          expect(error.param, where).toBe(/\{([^}]+)\}/.exec(operation.path)?.[1])
        if (status === 422) {
          const first = (error.errors as { param: string }[])[0]
          expect([error.param, first?.param], where).toEqual(['', ''])
        }
        expect(response.effect, where).toBeUndefined()
      }
      expect(h.drift).toEqual([])
    },
  )

  it('answers 429 with rate-limit headers that agree with the body', async () => {
    await h.addScenario({ operation: 'getUser', status: 429 })
    const response = await h.send('GET', '/user')
    expect(response.status).toBe(429)
    const parsed = readRateLimitHeaders(response.headers)
    if (!parsed.ok) throw new Error(parsed.error)
    const burst = parsed.value.states.find((s) => s.name === 'burst')
    const error = (response.body as { error: { policy: string; retry_after: number } }).error
    expect(error.policy).toBe('burst')
    expect(burst?.remaining).toBe(0)
    expect(error.retry_after).toBe(burst?.reset)
    expect(error.retry_after).toBeGreaterThanOrEqual(1)
    expect(response.headers['retry-after']).toBe(String(error.retry_after))
    expect(response.headers['x-ratelimit-remaining']).toBe('0')
  })

  it('names the exhausted window with the largest wait, as a real 429 does, when the hourly one is spent too', async () => {
    const account = await h.platform.createAccount({ plan: 'free', limits: { hourly: 1, burst: 5 } })
    const { value: key } = await h.platform.createKey(account.id, { type: 'secret', name: 'one an hour' })
    await h.addScenario({ operation: 'getUser', status: 429 })
    const response = await h.send('GET', '/user', { key })
    const error = (response.body as { error: { policy: string; retry_after: number } }).error
    expect(error.policy).toBe('hourly')
    expect(error.retry_after).toBeGreaterThan(60)
    expect(response.headers['retry-after']).toBe(String(error.retry_after))
  })

  it.each([
    ['createAgent', 'POST', '/agents', AGENT_BODY],
    ['inviteTeamMember', 'POST', '/team-members', { email: 'new.person@example.com', role: 'viewer' }],
  ])(
    'changes nothing: %s answered 500 stores nothing, not even its idempotency key',
    async (operation, method, path, body) => {
      const before = await dataOf(h)
      await h.addScenario({ operation, status: 500, times: 1 })
      const headers = { 'idempotency-key': `scenario-${operation}` }
      const injected = await h.send(method, path, { body, headers })
      expect(injected.status).toBe(500)
      expect(await dataOf(h)).toEqual(before)
      const real = await h.send(method, path, { body, headers })
      expect(real.status).toBe(201)
      expect(real.headers['idempotent-replayed']).toBeUndefined()
    },
  )

  it('changes nothing: updates and deletes answered with an error leave the data as it was', async () => {
    const agent = (await h.send('POST', '/agents', { body: AGENT_BODY })).body as { id: string }
    const invite = { email: 'kept@example.com', role: 'viewer' }
    const member = (await h.send('POST', '/team-members', { body: invite })).body as { id: string }
    const before = await dataOf(h)
    expect(before.agents).toHaveLength(1)
    await h.addScenario({ operation: 'updateAgent', status: 422 })
    await h.addScenario({ operation: 'deleteAgent', status: 503 })
    await h.addScenario({ operation: 'removeTeamMember', status: 409 })
    await h.addScenario({ operation: 'updateIntegration', status: 404 })
    expect((await h.send('PATCH', `/agents/${agent.id}`, { body: { name: 'Renamed' } })).status).toBe(422)
    expect((await h.send('DELETE', `/agents/${agent.id}`)).status).toBe(503)
    expect((await h.send('DELETE', `/team-members/${member.id}`)).status).toBe(409)
    expect((await h.send('PATCH', '/integrations/slack', { body: { enabled: true } })).status).toBe(404)
    expect(await dataOf(h)).toEqual(before)
  })

  it('answers before permission and input checks, after authentication and routing', async () => {
    const publishable = await h.platform.createKey(h.accountId, { type: 'publishable', name: 'web' })
    await h.addScenario({ operation: 'createAgent', status: 502 })
    await h.addScenario({ operation: '*', status: 504, key_id: h.keyId })
    // A publishable key may not create agents (403), and {} is no agent (422): the scenario answers first.
    const refused = await h.send('POST', '/agents', { key: publishable.value, body: {} })
    expect(refused.status).toBe(502)
    // Unauthenticated, unknown routes and wrong methods keep their own answers.
    expect((await h.send('GET', '/user', { key: 'sk-svc-unknown' })).status).toBe(401)
    expect((await h.send('GET', '/nowhere')).status).toBe(404)
    expect((await h.send('PUT', '/agents')).status).toBe(405)
    expect((await h.send('GET', '/user')).status).toBe(504)
  })

  it('leaves requests that the real rate limit refuses alone', async () => {
    const account = await h.platform.createAccount({ plan: 'free', limits: { hourly: 100, burst: 1 } })
    const { value: key } = await h.platform.createKey(account.id, { type: 'secret', name: 'one a minute' })
    expect((await h.send('GET', '/user', { key })).status).toBe(200)
    const scenario = await h.addScenario({ operation: '*', status: 500 })
    const limited = await h.send('GET', '/user', { key })
    expect(limited.status).toBe(429)
    expect(limited.headers['mock-scenario']).toBeUndefined()
    expect((await h.scenarios()).find((s) => s.id === scenario.id)?.uses).toBe(0)
  })

  it('marks the journal entry of an injected answer', async () => {
    const scenario = await h.addScenario({ operation: 'listAgents', status: 503 })
    await h.send('GET', '/agents')
    await h.send('GET', '/user')
    const journal = await h.control('GET', `/journal?account_id=${h.accountId}`)
    const [user, agents] = journal.body.data
    expect(agents).toMatchObject({
      status: 503,
      operation_id: 'listAgents',
      scenario: { id: scenario.id, delay_ms: null, network_error: null },
    })
    expect(user).toMatchObject({ status: 200, scenario: null })
  })
})

describe('which scenario applies', () => {
  it('tries the newest first, and only one applies to a request', async () => {
    const older = await h.addScenario({ operation: '*', status: 500 })
    const newer = await h.addScenario({ operation: 'getUser', status: 503, times: 1 })
    expect((await h.send('GET', '/user')).headers['mock-scenario']).toBe(newer.id)
    expect((await h.send('GET', '/user')).headers['mock-scenario']).toBe(older.id)
    expect((await h.scenarios()).find((s) => s.id === older.id)?.uses).toBe(1)
  })

  it('falls through to an older scenario when a newer one draws no', async () => {
    const older = await h.addScenario({ operation: '*', status: 500 })
    await h.addScenario({ operation: '*', status: 503, probability: 0 })
    const response = await h.send('GET', '/agents')
    expect(response.status).toBe(500)
    expect(response.headers['mock-scenario']).toBe(older.id)
  })

  it('matches only its operation', async () => {
    await h.addScenario({ operation: 'getAgent', status: 500 })
    expect((await h.send('GET', '/agents')).status).toBe(200)
    expect((await h.send('GET', '/agents/agt_anything')).status).toBe(500)
  })

  it("matches only its account's keys, or only its key", async () => {
    const sameAccount = await h.anotherKey()
    const otherAccount = await h.anotherKey(true)
    await h.addScenario({ operation: 'getUser', status: 500, account_id: otherAccount.accountId })
    await h.addScenario({ operation: 'listAgents', status: 503, key_id: sameAccount.keyId })
    expect((await h.send('GET', '/user')).status).toBe(200)
    expect((await h.send('GET', '/user', { key: otherAccount.key })).status).toBe(500)
    expect((await h.send('GET', '/agents')).status).toBe(200)
    expect((await h.send('GET', '/agents', { key: sameAccount.key })).status).toBe(503)
  })
})

describe('an injected answer the contract would not accept', () => {
  it('becomes a 500 naming the drift when responses are checked', async () => {
    // A contract whose error codes lack bad_gateway: the mock's 502 no longer conforms to it.
    const v1 = structuredClone(contractDocuments.v1) as unknown as {
      components: {
        schemas: { Error: { properties: { error: { properties: { code: { enum: string[] } } } } } }
      }
    }
    const codes = v1.components.schemas.Error.properties.error.properties.code
    codes.enum = codes.enum.filter((code) => code !== 'bad_gateway')
    const drift: string[] = []
    const engine = await createEngine({
      documents: { ...contractDocuments, v1: v1 as unknown as typeof contractDocuments.v1 },
      checkResponses: true,
      onContractViolation: (message) => drift.push(message),
    })
    const add = (body: unknown) =>
      engine.handle({
        method: 'POST',
        url: '/_mock/scenarios',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    await add({ operation: 'getUser', status: 502, times: 1 })
    await add({ operation: 'listAgents', status: 503, times: 1 })
    const headers = { authorization: `Bearer ${engine.demo.secretKey}` }
    const drifted = await engine.handle({ method: 'GET', url: '/v1/user', headers, body: null })
    expect(drifted.status).toBe(500)
    expect(drift).toEqual([expect.stringContaining('Contract drift in an injected 502 for getUser: ')])
    expect(drift[0]).toContain('/error/code')
    expect((drifted.body as { error: { message: string } }).error.message).toBe(drift[0])
    expect((await engine.handle({ method: 'GET', url: '/v1/agents', headers, body: null })).status).toBe(503)
    // Unchecked (the default outside tests), the answer goes out as injected.
    const unchecked = await createEngine({
      documents: { ...contractDocuments, v1: v1 as unknown as typeof contractDocuments.v1 },
    })
    await unchecked.handle({
      method: 'POST',
      url: '/_mock/scenarios',
      headers: { 'content-type': 'application/json' },
      body: '{"operation":"getUser","status":502}',
    })
    const answer = await unchecked.handle({
      method: 'GET',
      url: '/v1/user',
      headers: { authorization: `Bearer ${unchecked.demo.secretKey}` },
      body: null,
    })
    expect(answer.status).toBe(502)
  })
})

import { beforeEach, describe, expect, it } from 'vitest'
import { answerProblems } from './support/contract-answer.ts'
import { AGENT_BODY, type ScenarioHarness, scenarioHarness } from './support/scenario-harness.ts'

let h: ScenarioHarness
beforeEach(async () => {
  h = await scenarioHarness()
})

const agentsCount = async () => (await h.send('GET', '/agents?limit=100')).body.data.length

describe('Prefer: code=<status> on a v1 request', () => {
  it.each([
    ['getUser', 'GET', '/user', 'code=401', 401],
    ['getAgent', 'GET', '/agents/agt_missing', 'code=404', 404],
    ['createAgent', 'POST', '/agents', 'code=422', 422],
    ['createAgent', 'POST', '/agents', 'code=409', 409],
    ['listCallLogs', 'GET', '/call-logs', 'code=429', 429],
    ['listAgents', 'GET', '/agents', 'code=500', 500],
    ['listAgents', 'GET', '/agents', 'code=503', 503],
  ])(
    '%s answers a documented %s error with the contract envelope, changing nothing',
    async (operation, method, path, prefer, status) => {
      const before = await agentsCount()
      const response = await h.send(method, path, {
        headers: { prefer },
        body: method === 'POST' ? AGENT_BODY : undefined,
      })
      expect(response.status).toBe(status)
      expect(response.headers['mock-scenario']).toBe('prefer')
      expect(response.headers['preference-applied']).toBe(prefer)
      expect(answerProblems(operation, status, response.body)).toEqual([])
      expect(await agentsCount()).toBe(before)
      const journal = await h.control('GET', `/journal?account_id=${h.accountId}&limit=2`)
      expect(journal.body.data[1].scenario).toEqual({ id: 'prefer', delay_ms: null, network_error: null })
    },
  )

  it("answers a documented success as the operation's real answer: the request runs", async () => {
    const before = await agentsCount()
    const created = await h.send('POST', '/agents', { headers: { prefer: 'code=201' }, body: AGENT_BODY })
    expect(created.status).toBe(201)
    expect(created.headers['mock-scenario']).toBeUndefined()
    expect(await agentsCount()).toBe(before + 1)
    // The real answer is what the request leads to: here a 404, for an agent that does not exist.
    const missing = await h.send('GET', '/agents/agt_missing', { headers: { prefer: 'code=200' } })
    expect(missing.status).toBe(404)
    expect(missing.headers['mock-scenario']).toBeUndefined()
  })

  it.each([
    ['a success the operation does not document', 'GET', '/agents', 'code=201'],
    ['an error the operation does not document', 'GET', '/agents', 'code=409'],
    ['a status no operation documents', 'GET', '/user', 'code=418'],
    ['a gateway status outside the table', 'GET', '/user', 'code=501'],
    ['a code that is not a status', 'GET', '/user', 'code=abc'],
    ['a code of four digits', 'GET', '/user', 'code=4040'],
    ['an empty code', 'GET', '/user', 'code='],
    ['a code without a value', 'GET', '/user', 'respond-async, code'],
    ['a code with a prefix', 'GET', '/user', 'code=x404'],
    ['a quote that does not start the value', 'GET', '/user', 'code=4"04"'],
  ])(
    'refuses %s with 400 naming Prefer and the statuses it could ask for',
    async (_name, method, path, prefer) => {
      const response = await h.send(method, path, { headers: { prefer } })
      expect(response.status).toBe(400)
      expect(response.body.error).toMatchObject({ code: 'invalid_parameter', param: 'Prefer' })
      expect(response.body.error.message).toContain('Prefer')
      expect(response.body.error.message).toContain(
        '200, 400, 401, 403, 404, 405, 413, 429, 500, 502, 503, 504',
      )
      const malformed = !/^code=\d{3}$/.test(prefer)
      expect(response.body.error.message).toContain(
        malformed ? 'takes a three-digit status' : `${prefer} is not a status`,
      )
      expect(response.headers['mock-scenario']).toBeUndefined()
    },
  )

  it.each([
    ['a quoted value', 'code="404"', 404],
    ['an upper-case name', 'CODE=404', 404],
    ['other preferences around it', 'return=minimal, code=404; foo=bar, dynamic=true', 404],
    ['spaces', '  code = 404 ', 404],
    ['a preference without a value before it', 'respond-async, code=404', 404],
    ['no code preference', 'return=minimal, dynamic=true', 200],
  ])('reads the header with %s', async (_name, prefer, status) => {
    const response = await h.send('GET', '/user', { headers: { prefer } })
    expect(response.status).toBe(status)
  })

  it('takes precedence over scenarios, which then count no use', async () => {
    const scenario = await h.addScenario({ operation: 'getUser', status: 500, times: 2 })
    expect((await h.send('GET', '/user', { headers: { prefer: 'code=404' } })).status).toBe(404)
    expect((await h.send('GET', '/user', { headers: { prefer: 'code=200' } })).status).toBe(200)
    expect((await h.scenarios()).find((s) => s.id === scenario.id)).toMatchObject({ uses: 0, remaining: 2 })
    expect((await h.send('GET', '/user')).status).toBe(500)
  })

  it('lets an app on another origin send Prefer and read Mock-Scenario (CORS)', async () => {
    const origin = 'http://localhost:5173'
    const preflight = await h.platform.handle({
      method: 'OPTIONS',
      url: '/v1/user',
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'prefer' },
      body: null,
    })
    expect(preflight.headers['access-control-allow-headers']?.split(', ')).toContain('Prefer')
    const answer = await h.send('GET', '/user', { headers: { origin, prefer: 'code=503' } })
    const exposed = answer.headers['access-control-expose-headers']?.split(', ')
    expect(exposed).toEqual(expect.arrayContaining(['Mock-Scenario', 'Preference-Applied']))
  })
})

import { beforeEach, describe, expect, it } from 'vitest'
import { v1Operations } from './support/contract-answer.ts'
import { type ScenarioHarness, scenarioHarness } from './support/scenario-harness.ts'

let h: ScenarioHarness
beforeEach(async () => {
  h = await scenarioHarness()
})

describe('POST /_mock/scenarios', () => {
  it('creates a scenario with its defaults, active at once', async () => {
    const before = Date.parse(h.platform.clock.iso())
    const response = await h.control('POST', '/scenarios', { operation: 'listAgents', status: 500 })
    const after = Date.parse(h.platform.clock.iso())
    expect(response.status).toBe(201)
    expect(response.body).toMatchObject({
      object: 'scenario',
      operation: 'listAgents',
      account_id: null,
      key_id: null,
      status: 500,
      delay: null,
      network_error: null,
      times: null,
      probability: 1,
      uses: 0,
      remaining: null,
    })
    expect(response.body.id).toMatch(/^scn_[A-Za-z0-9]{16}$/)
    // Stamped by the mock clock while it was made (a second may turn meanwhile).
    const created = Date.parse(response.body.created_at)
    expect(created).toBeGreaterThanOrEqual(before)
    expect(created).toBeLessThanOrEqual(after)
    expect((await h.send('GET', '/agents')).status).toBe(500)
  })

  it.each([
    ['an unknown operation', { operation: 'lstAgents', status: 500 }, 'operation'],
    ['an operation that is no operationId', { operation: 'GET /agents', status: 500 }, 'operation'],
    ['a status the operation does not document', { operation: 'listAgents', status: 409 }, 'status'],
    ['a status not every operation documents, for *', { operation: '*', status: 422 }, 'status'],
    ['a success status', { operation: 'listAgents', status: 200 }, 'status'],
    ['a status outside HTTP', { operation: 'listAgents', status: 600 }, 'status'],
    ['a gateway status the table does not list', { operation: 'listAgents', status: 501 }, 'status'],
    ['a negative fixed delay', { operation: '*', delay: { type: 'fixed', ms: -1 } }, 'delay.ms'],
    ['a delay over 30 s', { operation: '*', delay: { type: 'fixed', ms: 30_001 } }, 'delay.ms'],
    ['a delay that is a bare number', { operation: '*', delay: 200 }, 'delay'],
    ['a delay of an unknown kind', { operation: '*', delay: { type: 'gamma', ms: 5 } }, 'delay.type'],
    ['a delay without its kind', { operation: '*', delay: { ms: 5 } }, 'delay.type'],
    ['a delay kind that is no string', { operation: '*', delay: { type: 5, ms: 5 } }, 'delay.type'],
    [
      'a field of another kind of delay',
      { operation: '*', delay: { type: 'fixed', ms: 5, sigma: 1 } },
      'delay.sigma',
    ],
    [
      'a negative uniform bound',
      { operation: '*', delay: { type: 'uniform', min_ms: -5, max_ms: 5 } },
      'delay.min_ms',
    ],
    [
      'uniform bounds out of order',
      { operation: '*', delay: { type: 'uniform', min_ms: 50, max_ms: 49 } },
      'delay.max_ms',
    ],
    [
      'a lognormal median of 0',
      { operation: '*', delay: { type: 'lognormal', median_ms: 0, sigma: 1 } },
      'delay.median_ms',
    ],
    [
      'a lognormal sigma of 0',
      { operation: '*', delay: { type: 'lognormal', median_ms: 9, sigma: 0 } },
      'delay.sigma',
    ],
    [
      'a lognormal sigma over 3',
      { operation: '*', delay: { type: 'lognormal', median_ms: 9, sigma: 3.01 } },
      'delay.sigma',
    ],
    ['a probability under 0', { operation: '*', status: 500, probability: -0.01 }, 'probability'],
    ['a probability over 1', { operation: '*', status: 500, probability: 1.01 }, 'probability'],
    ['times of 0', { operation: '*', status: 500, times: 0 }, 'times'],
    ['fractional times', { operation: '*', status: 500, times: 1.5 }, 'times'],
    ['an unknown network error', { operation: '*', network_error: 'dns' }, 'network_error'],
    [
      'a network error with a status',
      { operation: '*', status: 500, network_error: 'reset' },
      'network_error',
    ],
    ['no effect at all', { operation: '*', times: 3 }, ''],
    ['no operation', { status: 500 }, 'operation'],
    ['an unknown field', { operation: '*', status: 500, after_ms: 5 }, 'after_ms'],
    [
      'an account that does not exist',
      { operation: '*', status: 500, account_id: 'usr_0000000000000000' },
      'account_id',
    ],
    ['a key that does not exist', { operation: '*', status: 500, key_id: 'key_0000000000000000' }, 'key_id'],
    ['a malformed account id', { operation: '*', status: 500, account_id: 'acct_1' }, 'account_id'],
  ])('refuses %s with 422 naming the field, and stores nothing', async (_name, input, param) => {
    const version = h.platform.changes()
    const response = await h.control('POST', '/scenarios', input)
    expect(response.status).toBe(422)
    expect(response.body.error).toMatchObject({ type: 'validation_error', code: 'validation_failed', param })
    expect(response.body.error.errors.map((e: { param: string }) => e.param)).toContain(param)
    expect(h.platform.changes()).toBe(version)
    await expect(h.scenarios()).resolves.toEqual([])
    expect((await h.send('GET', '/agents')).status).toBe(200)
  })

  it('refuses a key of another account than account_id', async () => {
    const other = await h.anotherKey(true)
    const response = await h.control('POST', '/scenarios', {
      operation: '*',
      status: 500,
      account_id: h.accountId,
      key_id: other.keyId,
    })
    expect(response.status).toBe(422)
    expect(response.body.error.param).toBe('key_id')
    expect(response.body.error.message).toContain('belongs to another account than account_id')
    await expect(h.scenarios()).resolves.toEqual([])
  })

  it.each([
    [
      'operation',
      { operation: 'lstAgents', status: 500 },
      "'lstAgents' is not an operationId of the v1 contract",
    ],
    ['status', { operation: 'listAgents', status: 204 }, 'A scenario injects failures; 204 is a success'],
    ['status', { operation: '*', status: 409 }, 'every operation cannot answer 409'],
    ['', { operation: '*' }, 'A scenario needs an effect: status, delay or network_error.'],
    [
      'network_error',
      { operation: '*', status: 500, network_error: 'timeout' },
      'network_error cannot be combined with status',
    ],
    [
      'delay.max_ms',
      { operation: '*', delay: { type: 'uniform', min_ms: 9, max_ms: 8 } },
      "'delay.max_ms' must be at least 'delay.min_ms'",
    ],
    ['account_id', { operation: '*', status: 500, account_id: 'usr_none' }, "No account with id 'usr_none'"],
    ['key_id', { operation: '*', status: 500, key_id: 'key_none' }, "No key with id 'key_none'"],
  ])('explains a problem with %s', async (param, input, message) => {
    const response = await h.control('POST', '/scenarios', input)
    const problem = response.body.error.errors.find((e: { param: string }) => e.param === param)
    expect(problem.message).toContain(message)
    expect(problem.code).toBe(param === '' ? 'required' : param === 'delay.max_ms' ? 'minimum' : 'invalid')
  })

  it('says which statuses the operation can answer', async () => {
    const response = await h.control('POST', '/scenarios', { operation: 'getUser', status: 409 })
    expect(response.body.error.message).toContain('getUser cannot answer 409')
    expect(response.body.error.message).toContain('400, 401, 403, 404, 405, 413, 429, 500, 502, 503, 504')
  })

  it.each([
    ['probability 0', { operation: '*', status: 500, probability: 0 }],
    ['probability 1', { operation: '*', status: 500, probability: 1 }],
    ['a delay of 0 ms', { operation: '*', delay: { type: 'fixed', ms: 0 } }],
    ['a delay of 30 s', { operation: '*', delay: { type: 'fixed', ms: 30_000 } }],
    ['uniform bounds that are equal', { operation: '*', delay: { type: 'uniform', min_ms: 40, max_ms: 40 } }],
    ['a lognormal sigma of 3', { operation: '*', delay: { type: 'lognormal', median_ms: 1, sigma: 3 } }],
    ['times of 1', { operation: '*', status: 500, times: 1 }],
    ['a status every operation documents, for *', { operation: '*', status: 404 }],
    ['a gateway status, for *', { operation: '*', status: 504 }],
    ['a conflict where the operation documents one', { operation: 'inviteTeamMember', status: 409 }],
    [
      'a network error with a delay',
      { operation: '*', network_error: 'timeout', delay: { type: 'fixed', ms: 5 } },
    ],
  ])('accepts %s', async (_name, input) => {
    const response = await h.control('POST', '/scenarios', input)
    expect(response.status).toBe(201)
    expect(response.body).toMatchObject(input)
  })

  it('narrows a scenario to an account and a key of it', async () => {
    const response = await h.control('POST', '/scenarios', {
      operation: 'getUser',
      status: 503,
      account_id: h.accountId,
      key_id: h.keyId,
    })
    expect(response.status).toBe(201)
    expect(response.body).toMatchObject({ account_id: h.accountId, key_id: h.keyId })
  })
})

describe('GET /_mock/scenarios', () => {
  it('lists the active scenarios newest first, with their uses and what remains', async () => {
    const first = await h.addScenario({ operation: 'getUser', status: 500, times: 3 })
    const second = await h.addScenario({ operation: 'listAgents', delay: { type: 'fixed', ms: 1 } })
    await h.send('GET', '/user')
    const list = await h.control('GET', '/scenarios')
    expect(list.status).toBe(200)
    expect(list.body).toMatchObject({ object: 'list', has_more: false })
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([second.id, first.id])
    expect(list.body.data[1]).toMatchObject({ uses: 1, remaining: 2, times: 3 })
    expect(list.body.data[0]).toMatchObject({ uses: 0, remaining: null })
  })
})

describe('GET /_mock/scenarios, page by page', () => {
  it('pages newest first with limit and starting_after, has_more while more remain', async () => {
    const ids: string[] = []
    for (let i = 0; i < 5; i++) ids.unshift((await h.addScenario({ operation: 'getUser', status: 500 })).id)
    const pages: string[][] = []
    const more: boolean[] = []
    let after = ''
    for (let page = 0; page < 4; page++) {
      const list = await h.control('GET', `/scenarios?limit=2${after ? `&starting_after=${after}` : ''}`)
      expect(list.status).toBe(200)
      pages.push(list.body.data.map((s: { id: string }) => s.id))
      more.push(list.body.has_more)
      if (!list.body.has_more) break
      after = list.body.data.at(-1).id
    }
    expect(pages).toEqual([ids.slice(0, 2), ids.slice(2, 4), ids.slice(4)])
    expect(more).toEqual([true, true, false])
    expect(h.drift).toEqual([])
  })

  it('answers 100 at most by default', async () => {
    for (let i = 0; i < 101; i++)
      await h.addScenario({ operation: 'getUser', delay: { type: 'fixed', ms: 1 } })
    const list = await h.control('GET', '/scenarios')
    expect(list.body.data).toHaveLength(100)
    expect(list.body.has_more).toBe(true)
  })

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['starting_after=scn_NoSuchScenario1', 'starting_after'],
    ['starting_after=agt_1', 'starting_after'],
  ])('answers 400 naming the parameter for %s', async (query, param) => {
    const list = await h.control('GET', `/scenarios?${query}`)
    expect(list.status).toBe(400)
    expect(list.body.error).toMatchObject({ code: 'invalid_parameter', param })
    expect(h.drift).toEqual([])
  })
})

describe('DELETE /_mock/accounts/{account_id}', () => {
  it("removes the account's scenarios with it: those of the account and those of its keys", async () => {
    const other = await h.anotherKey(true)
    await h.addScenario({ operation: 'getUser', status: 500, account_id: other.accountId })
    await h.addScenario({ operation: 'listAgents', status: 503, key_id: other.keyId })
    const kept = [
      (await h.addScenario({ operation: 'getUser', status: 502, account_id: h.accountId })).id,
      (await h.addScenario({ operation: '*', delay: { type: 'fixed', ms: 1 } })).id,
    ]
    expect((await h.control('DELETE', `/accounts/${other.accountId}`)).status).toBe(200)
    expect((await h.scenarios()).map((s) => s.id).sort()).toEqual(kept.sort())
  })
})

describe('GET /_mock/scenarios/{scenario_id}', () => {
  it('answers one scenario, and 404 naming scenario_id for one that is gone', async () => {
    const scenario = await h.addScenario({ operation: 'getUser', status: 500, times: 1 })
    await expect(h.control('GET', `/scenarios/${scenario.id}`)).resolves.toMatchObject({
      status: 200,
      body: { id: scenario.id, remaining: 1 },
    })
    await h.send('GET', '/user')
    const gone = await h.control('GET', `/scenarios/${scenario.id}`)
    expect(gone.status).toBe(404)
    expect(gone.body.error).toMatchObject({ code: 'resource_not_found', param: 'scenario_id' })
    expect(gone.body.error.message).toBe(`No scenario with id '${scenario.id}'.`)
  })

  it('answers 404 naming scenario_id for an id of another kind', async () => {
    const response = await h.control('GET', '/scenarios/agt_1')
    expect(response.status).toBe(404)
    expect(response.body.error.param).toBe('scenario_id')
  })
})

describe('DELETE /_mock/scenarios/{scenario_id}', () => {
  it('removes one scenario: the next request gets the real answer, and a second removal is 404', async () => {
    const scenario = await h.addScenario({ operation: 'getUser', status: 500 })
    const kept = await h.addScenario({ operation: 'listAgents', status: 503 })
    const removed = await h.control('DELETE', `/scenarios/${scenario.id}`)
    expect(removed.status).toBe(200)
    expect(removed.body).toEqual({ id: scenario.id, object: 'scenario', deleted: true })
    expect((await h.send('GET', '/user')).status).toBe(200)
    expect((await h.send('GET', '/agents')).status).toBe(503)
    expect((await h.control('DELETE', `/scenarios/${scenario.id}`)).status).toBe(404)
    expect((await h.scenarios()).map((s) => s.id)).toEqual([kept.id])
  })
})

describe('DELETE /_mock/scenarios', () => {
  it('removes every scenario and says how many', async () => {
    await h.addScenario({ operation: 'getUser', status: 500 })
    await h.addScenario({ operation: '*', network_error: 'reset' })
    const cleared = await h.control('DELETE', '/scenarios')
    expect(cleared.body).toEqual({ object: 'scenarios_cleared', deleted: 2 })
    await expect(h.scenarios()).resolves.toEqual([])
    expect((await h.send('GET', '/user')).status).toBe(200)
    expect((await h.control('DELETE', '/scenarios')).body.deleted).toBe(0)
  })
})

describe('POST /_mock/reset', () => {
  it('clears the scenarios', async () => {
    await h.addScenario({ operation: '*', status: 500 })
    expect((await h.control('POST', '/reset')).status).toBe(200)
    await expect(h.scenarios()).resolves.toEqual([])
    expect((await h.send('GET', '/user', { key: h.platform.demo.secretKey })).status).toBe(200)
  })
})

describe('GET /_mock/operations', () => {
  it('lists every v1 operation with the statuses a scenario may inject into it', async () => {
    const response = await h.control('GET', '/operations')
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ object: 'list', has_more: false })
    expect(response.body.data).toHaveLength(v1Operations.length)
    for (const operation of v1Operations) {
      const listed = response.body.data.find(
        (o: { operation_id: string }) => o.operation_id === operation.operationId,
      )
      const errors = operation.statuses.filter((s) => s >= 400)
      const expected = [...new Set([...errors, 500, 502, 503, 504])].sort((a, b) => a - b)
      expect(listed).toEqual({
        object: 'operation',
        operation_id: operation.operationId,
        method: operation.method,
        path: operation.path,
        scenario_statuses: expected,
      })
    }
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SCOPES } from '../../mocks/engine/permissions.ts'
import { contractDocuments } from '../../mocks/platform.ts'
import { call, provision } from '../support/client.ts'
import { startTransport, TRANSPORTS, type Transport } from '../support/transports.ts'

/** One request per operation of the contract, with the scopes it needs (read from the contract). */
function operationsOfContract() {
  const cases: { operationId: string; method: string; path: string; needs: string[] }[] = []
  for (const [template, item] of Object.entries(contractDocuments.v1.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (typeof operation !== 'object' || !operation || !('operationId' in operation)) continue
      const path = template
        .replace('{agent_id}', 'agt_missing000')
        .replace('{call_log_id}', 'call_missing000')
        .replace('{integration_id}', 'twilio')
        .replace('{member_id}', 'mem_missing000')
      const needs = (operation as { 'x-required-permission'?: string[] })['x-required-permission'] ?? []
      cases.push({
        operationId: String(operation.operationId),
        method: method.toUpperCase(),
        path: `/v1${path}`,
        needs,
      })
    }
  }
  return cases
}

const OPERATIONS = operationsOfContract()

describe.each(TRANSPORTS)('permissions (%s)', (kind) => {
  let mock: Transport
  beforeAll(async () => {
    mock = await startTransport(kind)
  })
  afterAll(() => mock.close())

  const guarded = OPERATIONS.flatMap((op) => op.needs.map((scope) => ({ ...op, scope })))

  it.each(guarded)('$operationId without $scope gets 403 naming it', async ({ method, path, scope }) => {
    // Every other scope, except the write scope that implies a read one.
    const implying = scope.endsWith(':read') ? scope.replace(':read', ':write') : undefined
    const { key } = await provision(
      mock,
      {},
      { permissions: SCOPES.filter((s) => s !== scope && s !== implying) },
    )
    const response = await call(mock, method, path, {
      key,
      body: method === 'GET' || method === 'DELETE' ? undefined : {},
    })
    expect(response.status).toBe(403)
    expect(response.body.error).toMatchObject({
      type: 'permission_error',
      code: 'insufficient_permissions',
      required_permission: scope,
    })
  })

  it.each(OPERATIONS)(
    '$operationId passes the permission check with exactly its scopes',
    async ({ method, path, needs }) => {
      const { key } = await provision(mock, {}, { permissions: needs.length > 0 ? needs : ['agents:read'] })
      const response = await call(mock, method, path, {
        key,
        body: method === 'GET' || method === 'DELETE' ? undefined : {},
      })
      expect(response.status).not.toBe(403)
    },
  )

  it('answers 403 before 404: a key without agents:read never learns whether an agent exists', async () => {
    const { key } = await provision(mock, {}, { permissions: ['call_logs:read'] })
    const response = await call(mock, 'GET', '/v1/agents/agt_doesnotexist', { key })
    expect(response.status).toBe(403)
  })

  it('lets agents:write read agents and integrations:write read integrations', async () => {
    const { key } = await provision(mock, {}, { permissions: ['agents:write', 'integrations:write'] })
    expect((await call(mock, 'GET', '/v1/agents', { key })).status).toBe(200)
    expect((await call(mock, 'GET', '/v1/integrations', { key })).status).toBe(200)
    expect((await call(mock, 'GET', '/v1/call-logs', { key })).status).toBe(403)
  })

  it('expands the read and write groups at key creation', async () => {
    const created = await provision(mock, {}, { permissions: ['read'] })
    const keys = await call(mock, 'GET', `/_mock/accounts/${created.accountId}/keys`)
    expect(keys.body.data[0].permissions).toEqual([
      'agents:read',
      'call_logs:read',
      'analytics:read',
      'integrations:read',
    ])
  })

  describe('publishable keys', () => {
    it('refuses a write with 403', async () => {
      const response = await call(mock, 'POST', '/v1/agents', {
        key: mock.platform.demo.publishableKey,
        body: {
          name: 'x',
          voice: { provider: 'openai', voice_id: 'alloy' },
          llm: { provider: 'openai', model: 'gpt-4o' },
        },
      })
      expect(response.status).toBe(403)
      expect(response.body.error.required_permission).toBe('agents:write')
    })

    it('never sees the sensitive agent fields', async () => {
      const list = await call(mock, 'GET', '/v1/agents', { key: mock.platform.demo.publishableKey })
      expect(list.status).toBe(200)
      expect(list.body.data.length).toBeGreaterThan(0)
      for (const agent of list.body.data) {
        expect(agent).not.toHaveProperty('system_prompt')
        expect(agent).not.toHaveProperty('webhook_url')
        expect(agent).not.toHaveProperty('metadata')
      }
      const secret = await call(mock, 'GET', '/v1/agents', { key: mock.platform.demo.secretKey })
      expect(secret.body.data[0]).toHaveProperty('system_prompt')
    })

    it('cannot be created with more than agents:read', async () => {
      const account = await call(mock, 'POST', '/_mock/accounts', { body: { plan: 'pro' } })
      const response = await call(mock, 'POST', `/_mock/accounts/${account.body.id}/keys`, {
        body: { type: 'publishable', name: 'too much', permissions: ['agents:write'] },
      })
      expect(response.status).toBe(422)
    })
  })

  describe('restrictions', () => {
    it('refuses a request from outside allowed_ips with 403 key_restricted', async () => {
      const { key } = await provision(mock, {}, { restrictions: { allowed_ips: ['203.0.113.0/24'] } })
      const response = await call(mock, 'GET', '/v1/user', { key })
      expect(response.status).toBe(403)
      expect(response.body.error.code).toBe('key_restricted')
    })

    it('refuses a request whose Origin is not listed, and admits a listed one', async () => {
      const { key } = await provision(
        mock,
        {},
        { restrictions: { allowed_origins: ['https://app.example.com'] } },
      )
      const refused = await call(mock, 'GET', '/v1/user', {
        key,
        headers: { origin: 'https://evil.example.net' },
      })
      expect(refused.status).toBe(403)
      expect(refused.body.error.code).toBe('key_restricted')
      const admitted = await call(mock, 'GET', '/v1/user', {
        key,
        headers: { origin: 'https://app.example.com' },
      })
      expect(admitted.status).toBe(200)
    })
  })
})

describe('IP restrictions over HTTP', () => {
  let mock: Transport
  beforeAll(async () => {
    mock = await startTransport('http')
  })
  afterAll(() => mock.close())

  it('admits a loopback client when 127.0.0.0/8 is allowed', async () => {
    const { key } = await provision(mock, {}, { restrictions: { allowed_ips: ['127.0.0.0/8', '::1'] } })
    expect((await call(mock, 'GET', '/v1/user', { key })).status).toBe(200)
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { v1Document } from '../../openapi/generated/v1.document.ts'
import { call } from '../support/client.ts'
import { startTransport, type Transport } from '../support/transports.ts'

// Where the contract allows several forms (docs/decisions/011-allowed-forms.md), the contract suite accepts each of them;
// the mock promises one canonical form, and that promise is tested here, as a property of the mock.

const WHOLE_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/
const LOOKS_LIKE_TIME = /^\d{4}-\d{2}-\d{2}T/

/** Every string in a JSON value that looks like a timestamp. */
function timestamps(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string' && LOOKS_LIKE_TIME.test(value)) out.push(value)
  else if (Array.isArray(value)) for (const item of value) timestamps(item, out)
  else if (value && typeof value === 'object') for (const item of Object.values(value)) timestamps(item, out)
  return out
}

const AGENT = {
  name: 'Canonical forms',
  voice: { provider: 'openai', voice_id: 'alloy' },
  llm: { provider: 'openai', model: 'gpt-4o' },
}

describe.each(['msw', 'http'] as const)('the mock answers in its canonical forms (%s)', (kind) => {
  let mock: Transport
  let key: string
  beforeAll(async () => {
    mock = await startTransport(kind)
    key = mock.platform.demo.secretKey as string
  })
  afterAll(() => mock.close())

  it('writes every timestamp in whole seconds with Z', async () => {
    const created = await call(mock, 'POST', '/v1/agents', { key, body: AGENT })
    expect(created.status).toBe(201)
    const logs = await call(mock, 'GET', '/v1/call-logs?limit=100', { key })
    const reads = await Promise.all(
      [
        '/v1/user',
        '/v1/agents?limit=100',
        `/v1/agents/${created.body.id}`,
        `/v1/call-logs/${logs.body.data[0].id}`,
        '/v1/integrations',
        '/v1/team-members',
        '/v1/analytics/calls?granularity=day',
      ].map((path) => call(mock, 'GET', path, { key })),
    )
    const found = [created, logs, ...reads].flatMap((r) => timestamps(r.body))
    expect(found.length).toBeGreaterThan(100)
    expect(found.filter((t) => !WHOLE_SECONDS.test(t))).toEqual([])
  })

  it('challenges with Bearer realm="api", adding error="invalid_token" for a bad key', async () => {
    const missing = await call(mock, 'GET', '/v1/user')
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="api"')
    const bad = await call(mock, 'GET', '/v1/user', { key: 'sk-svc-not-a-key' })
    expect(bad.headers.get('www-authenticate')).toBe('Bearer realm="api", error="invalid_token"')
  })

  it('answers a creation with the absolute URL of the new object in Location', async () => {
    const created = await call(mock, 'POST', '/v1/agents', { key, body: AGENT })
    expect(created.headers.get('location')).toBe(`${mock.origin}/v1/agents/${created.body.id}`)
  })

  it.each([
    ['/v1/agents?limit=0', 400, 'limit'],
    ['/v1/agents/agt_0Unknown0', 404, 'agent_id'],
    ['/v1/no-such-resource', 404, undefined],
  ] as const)(
    'puts request_id (and param where one is at fault) in the error for %s',
    async (path, status, param) => {
      const response = await call(mock, 'GET', path, { key })
      expect(response.status).toBe(status)
      expect(response.body.error.request_id).toBe(response.headers.get('request-id'))
      if (param) expect(response.body.error.param).toBe(param)
    },
  )

  it('lists the integrations in the catalogue order of the contract', async () => {
    const list = await call(mock, 'GET', '/v1/integrations', { key })
    const schemas = v1Document.components?.schemas as Record<string, { enum?: string[] }> | undefined
    const slugs = schemas?.IntegrationSlug?.enum
    expect(list.body.data.map((i: { id: string }) => i.id)).toEqual(slugs)
  })
})

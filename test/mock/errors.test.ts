import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, provision } from '../support/client.ts'
import { startTransport, TRANSPORTS, type Transport } from '../support/transports.ts'

const AGENT = {
  name: 'Support line',
  voice: { provider: 'openai', voice_id: 'alloy' },
  llm: { provider: 'openai', model: 'gpt-4o' },
}

describe.each(TRANSPORTS)('the 4xx of docs/decisions/007-errors.md (%s)', (kind) => {
  let mock: Transport
  let key: string
  beforeAll(async () => {
    mock = await startTransport(kind)
    ;({ key } = await provision(mock, { plan: 'enterprise' }))
  })
  afterAll(() => mock.close())

  const envelope = (body: { error: Record<string, unknown> }, type: string, code: string) => {
    expect(body.error).toMatchObject({ type, code })
    expect(typeof body.error.message).toBe('string')
    expect(body.error.request_id).toMatch(/^req_/)
  }

  // Prism answers malformed JSON and CORS preflights itself, without forwarding them.
  const viaMock = kind !== 'prism-proxy'

  it.runIf(viaMock)('400 invalid_json for a malformed body', async () => {
    const response = await call(mock, 'POST', '/v1/agents', {
      key,
      raw: '{"name": "x",',
      headers: { 'content-type': 'application/json' },
    })
    expect(response.status).toBe(400)
    envelope(response.body, 'invalid_request_error', 'invalid_json')
  })

  it('400 invalid_parameter for a bad query value, naming it', async () => {
    const response = await call(mock, 'GET', '/v1/call-logs?status=exploded', { key })
    expect(response.status).toBe(400)
    envelope(response.body, 'invalid_request_error', 'invalid_parameter')
    expect(response.body.error.param).toBe('status')
  })

  it('404 route_not_found for an unknown path (and for /v2 where the adapter owns the origin)', async () => {
    // MSW handlers intercept only /v1 and /_mock, so an app's other requests are left alone.
    for (const path of kind === 'http' ? ['/v1/agentz', '/v2/agents', '/'] : ['/v1/agentz']) {
      const response = await call(mock, 'GET', path, { key })
      expect(response.status).toBe(404)
      envelope(response.body, 'not_found_error', 'route_not_found')
    }
  })

  it('404 resource_not_found for an unknown id, naming the parameter', async () => {
    const response = await call(mock, 'GET', '/v1/call-logs/call_nothing', { key })
    expect(response.status).toBe(404)
    envelope(response.body, 'not_found_error', 'resource_not_found')
  })

  it('405 with Allow for an undocumented method on a known path', async () => {
    const response = await call(mock, 'PUT', '/v1/agents', { key, body: AGENT })
    expect(response.status).toBe(405)
    envelope(response.body, 'invalid_request_error', 'method_not_allowed')
    expect(response.headers.get('allow')).toBe('GET, HEAD, POST')
  })

  it('413 payload_too_large for a body over 1 MiB', async () => {
    const response = await call(mock, 'POST', '/v1/agents', {
      key,
      body: { ...AGENT, system_prompt: 'x'.repeat(1024 * 1024 + 1) },
    })
    expect(response.status).toBe(413)
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', code: 'payload_too_large' })
  })

  it('415 unsupported_media_type for a body that is not JSON', async () => {
    const response = await call(mock, 'POST', '/v1/agents', {
      key,
      raw: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(response.status).toBe(415)
    envelope(response.body, 'invalid_request_error', 'unsupported_media_type')
  })

  it('422 validation_failed with errors[] listing every field', async () => {
    const response = await call(mock, 'POST', '/v1/agents', { key, body: { voice: {}, extra: 1 } })
    expect(response.status).toBe(422)
    envelope(response.body, 'validation_error', 'validation_failed')
    const params = response.body.error.errors.map((e: { param: string }) => e.param)
    expect(params).toEqual(
      expect.arrayContaining(['name', 'llm', 'voice.provider', 'voice.voice_id', 'extra']),
    )
  })

  it('409 for the owner rules and a duplicate invitation', async () => {
    const members = await call(mock, 'GET', '/v1/team-members', { key })
    const owner = members.body.data.find((m: { role: string }) => m.role === 'owner')
    const change = await call(mock, 'PATCH', `/v1/team-members/${owner.id}`, {
      key,
      body: { role: 'viewer' },
    })
    expect(change.status).toBe(409)
    envelope(change.body, 'conflict_error', 'owner_role_immutable')
    const removal = await call(mock, 'DELETE', `/v1/team-members/${owner.id}`, { key })
    expect(removal.status).toBe(409)
    envelope(removal.body, 'conflict_error', 'cannot_remove_owner')
    const invite = { email: 'Dana.Reyes@example.com', role: 'editor' }
    expect((await call(mock, 'POST', '/v1/team-members', { key, body: invite })).status).toBe(201)
    const again = await call(mock, 'POST', '/v1/team-members', {
      key,
      body: { ...invite, email: 'dana.reyes@EXAMPLE.com' },
    })
    expect(again.status).toBe(409)
    envelope(again.body, 'conflict_error', 'member_already_exists')
  })

  it('answers 400 invalid_json to JSON that is not an object', async () => {
    for (const raw of ['[]', '"text"', '42', 'null', 'true']) {
      const response = await call(mock, 'POST', '/v1/agents', {
        key,
        raw,
        headers: { 'content-type': 'application/json' },
      })
      expect(response.status, raw).toBe(400)
      expect(response.body.error.code, raw).toBe('invalid_json')
    }
  })

  it.runIf(viaMock)('answers a CORS preflight without a key', async () => {
    const response = await call(mock, 'OPTIONS', '/v1/agents', {
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-headers')).toContain('Idempotency-Key')
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
  })
})

describe('bodies that are not UTF-8 (node:http)', () => {
  let mock: Transport
  let key: string
  beforeAll(async () => {
    mock = await startTransport('http')
    ;({ key } = await provision(mock, { plan: 'enterprise' }))
  })
  afterAll(() => mock.close())

  it('answers 400 invalid_json rather than storing replacement characters', async () => {
    const before = Buffer.from('{"name": "Caf')
    const after = Buffer.from(
      '", "voice": {"provider": "openai", "voice_id": "alloy"}, "llm": {"provider": "openai", "model": "gpt-4o"}}',
    )
    const body = Buffer.concat([before, Buffer.from([0xc3, 0x28]), after])
    const response = await fetch(`${mock.origin}/v1/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    })
    expect(response.status).toBe(400)
    const json = (await response.json()) as { error: { code: string; message: string } }
    expect(json.error.code).toBe('invalid_json')
    expect(json.error.message).toMatch(/UTF-8/)
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, provision } from '../support/client.ts'
import { startTransport, TRANSPORTS, type Transport } from '../support/transports.ts'

const NEW_AGENT = {
  name: 'Front desk',
  system_prompt: 'You answer calls for Bright Smile Dental and book appointments.',
  voice: { provider: 'elevenlabs', voice_id: 'EXAVITQu4vr4xnSDxMaL' },
  llm: { provider: 'openai', model: 'gpt-4o-mini' },
}

describe.each(TRANSPORTS)('agents (%s)', (kind) => {
  let mock: Transport
  let key: string
  beforeAll(async () => {
    mock = await startTransport(kind)
    ;({ key } = await provision(mock, { plan: 'enterprise' }))
  })
  afterAll(() => mock.close())

  describe('POST /agents', () => {
    it('creates an agent with the contract defaults, 201 and Location', async () => {
      const response = await call(mock, 'POST', '/v1/agents', { key, body: NEW_AGENT })
      expect(response.status).toBe(201)
      expect(response.body).toMatchObject({
        object: 'agent',
        name: 'Front desk',
        status: 'active',
        language: 'en-US',
        voice: { provider: 'elevenlabs', voice_id: 'EXAVITQu4vr4xnSDxMaL', speed: 1 },
        llm: { provider: 'openai', model: 'gpt-4o-mini', temperature: 0.7, max_tokens: 1024 },
        metadata: {},
      })
      expect(response.body.id).toMatch(/^agt_/)
      expect(response.headers.get('location')).toBe(`${mock.origin}/v1/agents/${response.body.id}`)
      const fetched = await call(mock, 'GET', `/v1/agents/${response.body.id}`, { key })
      expect(fetched.body).toEqual(response.body)
    })

    it('replays an idempotent create and creates one agent only', async () => {
      const headers = { 'idempotency-key': 'create-front-desk-1' }
      const first = await call(mock, 'POST', '/v1/agents', { key, body: NEW_AGENT, headers })
      const second = await call(mock, 'POST', '/v1/agents', { key, body: NEW_AGENT, headers })
      expect(second.status).toBe(201)
      expect(second.body.id).toBe(first.body.id)
      expect(second.headers.get('idempotent-replayed')).toBe('true')
      expect(first.headers.get('idempotent-replayed')).toBeNull()
    })

    it('replays the stored response, not the agent as it is now', async () => {
      const headers = { 'idempotency-key': 'replay-after-change' }
      const first = await call(mock, 'POST', '/v1/agents', { key, body: NEW_AGENT, headers })
      await call(mock, 'PATCH', `/v1/agents/${first.body.id}`, { key, body: { name: 'Changed since' } })
      const replay = await call(mock, 'POST', '/v1/agents', { key, body: NEW_AGENT, headers })
      expect(replay.body).toEqual(first.body)
    })

    it('creates exactly one agent from concurrent requests with one Idempotency-Key', async () => {
      const headers = { 'idempotency-key': 'concurrent-create' }
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => call(mock, 'POST', '/v1/agents', { key, body: NEW_AGENT, headers })),
      )
      expect(new Set(responses.map((r) => r.body.id)).size).toBe(1)
    })

    it('replays a body equal as JSON, whatever its key order and spacing', async () => {
      const headers = { 'idempotency-key': 'same-value-other-order', 'content-type': 'application/json' }
      const first = await call(mock, 'POST', '/v1/agents', { key, raw: JSON.stringify(NEW_AGENT), headers })
      const reordered = JSON.stringify(Object.fromEntries(Object.entries(NEW_AGENT).reverse()), null, 2)
      const second = await call(mock, 'POST', '/v1/agents', { key, raw: reordered, headers })
      expect(second.status).toBe(201)
      expect(second.body.id).toBe(first.body.id)
      expect(second.headers.get('idempotent-replayed')).toBe('true')
    })

    it('answers 409 when an Idempotency-Key is reused with another body', async () => {
      const headers = { 'idempotency-key': 'reused-key' }
      await call(mock, 'POST', '/v1/agents', { key, body: NEW_AGENT, headers })
      const response = await call(mock, 'POST', '/v1/agents', {
        key,
        body: { ...NEW_AGENT, name: 'Other' },
        headers,
      })
      expect(response.status).toBe(409)
      expect(response.body.error.code).toBe('idempotency_key_reused')
    })

    it('refuses an Idempotency-Key longer than 255 characters with 400', async () => {
      const response = await call(mock, 'POST', '/v1/agents', {
        key,
        body: NEW_AGENT,
        headers: { 'idempotency-key': 'k'.repeat(256) },
      })
      expect(response.status).toBe(400)
      expect(response.body.error.param).toBe('Idempotency-Key')
    })

    it('forgets an Idempotency-Key after 24 hours', async () => {
      const headers = { 'idempotency-key': 'day-old' }
      const first = await call(mock, 'POST', '/v1/agents', { key, body: NEW_AGENT, headers })
      await call(mock, 'POST', '/_mock/clock/advance', { body: { seconds: 24 * 3600 + 1 } })
      const second = await call(mock, 'POST', '/v1/agents', {
        key,
        body: { ...NEW_AGENT, name: 'Later' },
        headers,
      })
      expect(second.status).toBe(201)
      expect(second.body.id).not.toBe(first.body.id)
    })

    it.each([
      ['a missing required field', { ...NEW_AGENT, name: undefined }, 'name', 'required'],
      ['a wrong type', { ...NEW_AGENT, recording_enabled: 'yes' }, 'recording_enabled', 'type'],
      [
        'a value out of range',
        { ...NEW_AGENT, voice: { ...NEW_AGENT.voice, speed: 3 } },
        'voice.speed',
        'maximum',
      ],
      ['an unknown field', { ...NEW_AGENT, colour: 'blue' }, 'colour', 'unknown_field'],
      ['a bad enum', { ...NEW_AGENT, status: 'paused' }, 'status', 'enum'],
      ['a bad format', { ...NEW_AGENT, webhook_url: 'not a url' }, 'webhook_url', 'format'],
      [
        'a webhook URL without a host (http://)',
        { ...NEW_AGENT, webhook_url: 'http://' },
        'webhook_url',
        'pattern',
      ],
      [
        'a webhook URL with a port and no host',
        { ...NEW_AGENT, webhook_url: 'https://:8080/x' },
        'webhook_url',
        'pattern',
      ],
      [
        'a webhook URL of another scheme',
        { ...NEW_AGENT, webhook_url: 'ftp://hooks.example.com/' },
        'webhook_url',
        'pattern',
      ],
    ])('answers 422 naming the field for %s', async (_name, body, param, code) => {
      const response = await call(mock, 'POST', '/v1/agents', { key, body })
      expect(response.status).toBe(422)
      expect(response.body.error).toMatchObject({ type: 'validation_error', code: 'validation_failed' })
      expect(response.body.error.errors).toContainEqual(expect.objectContaining({ param, code }))
    })
    it.each([
      'https://hooks.example.com/calls',
      'http://127.0.0.1:4000/hooks?team=a#x',
      'http://[::1]:4000/hooks',
      'http://[::ffff:127.0.0.1]:4000',
      'https://user:secret@hooks.example.com',
      'http://localhost',
    ])('takes the webhook URL %s', async (url) => {
      const response = await call(mock, 'POST', '/v1/agents', {
        key,
        body: { ...NEW_AGENT, webhook_url: url },
      })
      expect(response.status).toBe(201)
      expect(response.body.webhook_url).toBe(url)
    })
  })

  describe('PATCH /agents/{agent_id}', () => {
    it('changes only the given fields, merges voice, and clears a nullable field with null', async () => {
      const created = await call(mock, 'POST', '/v1/agents', {
        key,
        body: {
          ...NEW_AGENT,
          description: 'Dental front desk',
          webhook_url: 'https://hooks.example.com/calls',
        },
      })
      await call(mock, 'POST', '/_mock/clock/advance', { body: { seconds: 5 } })
      const response = await call(mock, 'PATCH', `/v1/agents/${created.body.id}`, {
        key,
        body: { description: null, voice: { speed: 1.2 } },
      })
      expect(response.status).toBe(200)
      expect(response.body.description).toBeNull()
      expect(response.body.voice).toEqual({
        provider: 'elevenlabs',
        voice_id: 'EXAVITQu4vr4xnSDxMaL',
        speed: 1.2,
      })
      expect(response.body.webhook_url).toBe('https://hooks.example.com/calls')
      expect(response.body.updated_at > created.body.updated_at).toBe(true)
    })

    it('answers 404 for an unknown agent before looking at the body', async () => {
      const response = await call(mock, 'PATCH', '/v1/agents/agt_unknown00', { key, body: { name: 42 } })
      expect(response.status).toBe(404)
      expect(response.body.error.code).toBe('resource_not_found')
    })

    it('answers 422 for an empty body', async () => {
      const created = await call(mock, 'POST', '/v1/agents', { key, body: NEW_AGENT })
      const response = await call(mock, 'PATCH', `/v1/agents/${created.body.id}`, { key, body: {} })
      expect(response.status).toBe(422)
    })
  })

  describe('DELETE /agents/{agent_id}', () => {
    it('deletes the agent, and then answers 404', async () => {
      const created = await call(mock, 'POST', '/v1/agents', { key, body: NEW_AGENT })
      const deleted = await call(mock, 'DELETE', `/v1/agents/${created.body.id}`, { key })
      expect(deleted.status).toBe(200)
      expect(deleted.body).toEqual({ id: created.body.id, object: 'agent', deleted: true })
      expect((await call(mock, 'GET', `/v1/agents/${created.body.id}`, { key })).status).toBe(404)
      expect((await call(mock, 'DELETE', `/v1/agents/${created.body.id}`, { key })).status).toBe(404)
    })
  })

  describe('GET /agents pagination', () => {
    let ids: string[]
    let pageKey: string
    beforeAll(async () => {
      ;({ key: pageKey } = await provision(mock, { plan: 'enterprise' }))
      ids = []
      for (let i = 0; i < 7; i++) {
        const created = await call(mock, 'POST', '/v1/agents', {
          key: pageKey,
          body: { ...NEW_AGENT, name: `Agent ${i}` },
        })
        ids.unshift(created.body.id)
        // One second apart: within one second the order is by id (docs/decisions/008-lists-and-idempotency.md).
        await call(mock, 'POST', '/_mock/clock/advance', { body: { seconds: 1 } })
      }
    })

    it('lists newest first with the list envelope', async () => {
      const response = await call(mock, 'GET', '/v1/agents', { key: pageKey })
      expect(response.body.object).toBe('list')
      expect(response.body.has_more).toBe(false)
      expect(response.body.data.map((a: { id: string }) => a.id)).toEqual(ids)
    })

    it('walks forward with starting_after without skipping or repeating, and back with ending_before', async () => {
      const seen: string[] = []
      let cursor: string | undefined
      let hasMore = true
      while (hasMore) {
        const query = cursor ? `?limit=3&starting_after=${cursor}` : '?limit=3'
        const page = await call(mock, 'GET', `/v1/agents${query}`, { key: pageKey })
        seen.push(...page.body.data.map((a: { id: string }) => a.id))
        hasMore = page.body.has_more
        cursor = seen.at(-1)
      }
      expect(seen).toEqual(ids)
      const back = await call(mock, 'GET', `/v1/agents?limit=3&ending_before=${ids[6]}`, { key: pageKey })
      expect(back.body.data.map((a: { id: string }) => a.id)).toEqual(ids.slice(3, 6))
      expect(back.body.has_more).toBe(true)
      const first = await call(mock, 'GET', `/v1/agents?limit=3&ending_before=${ids[2]}`, { key: pageKey })
      expect(first.body.data.map((a: { id: string }) => a.id)).toEqual(ids.slice(0, 2))
      expect(first.body.has_more).toBe(false)
    })

    it('keeps paging from a cursor whose object was deleted', async () => {
      const victim = await call(mock, 'POST', '/v1/agents', { key: pageKey, body: NEW_AGENT })
      await call(mock, 'DELETE', `/v1/agents/${victim.body.id}`, { key: pageKey })
      const page = await call(mock, 'GET', `/v1/agents?limit=2&starting_after=${victim.body.id}`, {
        key: pageKey,
      })
      expect(page.status).toBe(200)
      expect(page.body.data.map((a: { id: string }) => a.id)).toEqual(ids.slice(0, 2))
    })

    it.each([
      ['limit=0', 'invalid_parameter', 'limit'],
      ['limit=101', 'invalid_parameter', 'limit'],
      ['limit=abc', 'invalid_parameter', 'limit'],
      ['starting_after=agt_nope', 'invalid_cursor', 'starting_after'],
      ['starting_after=agt_a&ending_before=agt_b', 'parameter_conflict', 'ending_before'],
      ['colour=blue', 'invalid_parameter', 'colour'],
    ])('answers 400 for %s', async (query, code, param) => {
      const response = await call(mock, 'GET', `/v1/agents?${query}`, { key: pageKey })
      expect(response.status).toBe(400)
      expect(response.body.error).toMatchObject({ type: 'invalid_request_error', code, param })
    })

    it('accepts limit=1 and limit=100', async () => {
      expect((await call(mock, 'GET', '/v1/agents?limit=1', { key: pageKey })).body.data).toHaveLength(1)
      expect((await call(mock, 'GET', '/v1/agents?limit=100', { key: pageKey })).body.data).toHaveLength(7)
    })
  })
})

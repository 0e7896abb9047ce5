import { mkdtempSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CapsuleError } from '../../mocks/engine/capsule/read-capsule.ts'
import type { StateSnapshot } from '../../mocks/engine/state/change-set.ts'
import type { EngineState } from '../../mocks/engine/state/state.ts'
import { type StateStore, StoreUnavailable } from '../../mocks/engine/state/store.ts'
import type { EngineRequest } from '../../mocks/engine/types.ts'
import { createMockPlatform, type MockPlatform } from '../../mocks/platform.ts'
import { createFileStore } from '../../mocks/stores/file/file-store.ts'
import { call, provision } from '../support/client.ts'
import { startTransport, type Transport } from '../support/transports.ts'

const MiB = 1024 * 1024
const agentBody = (name: string) => ({
  name,
  voice: { provider: 'elevenlabs', voice_id: 'rachel' },
  llm: { provider: 'openai', model: 'gpt-4o-mini' },
})
const request = (method: string, url: string, extra: Partial<EngineRequest> = {}): EngineRequest => ({
  method,
  url,
  headers: {},
  body: null,
  ...extra,
})
const post = (url: string, body: string, extra: Partial<EngineRequest> = {}) =>
  request('POST', url, { headers: { 'content-type': 'application/json' }, body, ...extra })

/** The state as it stands, for comparing before and after a refusal. */
const stateOf = (platform: MockPlatform) => JSON.stringify(platform.snapshot())

/** A capsule's text with one record of a table replaced by `change(record)`. */
function withRecord(text: string, table: string, change: (record: Record<string, unknown>) => unknown) {
  const capsule = JSON.parse(text)
  const records = capsule.state.tables[table] as [string, Record<string, unknown>][]
  const [key, record] = records[0] as [string, Record<string, unknown>]
  records[0] = [key, change(record) as Record<string, unknown>]
  return JSON.stringify(capsule)
}

describe('state capsules', () => {
  let origin: Transport
  let key: string
  let publishable: string
  let made: { key: string; accountId: string }
  let agentId: string
  let text: string
  let clockAtCapture: number

  beforeAll(async () => {
    origin = await startTransport('http')
    key = origin.platform.demo.secretKey ?? ''
    publishable = origin.platform.demo.publishableKey ?? ''
    made = await provision(origin)
    const agent = await call(origin, 'POST', '/v1/agents', { key, body: agentBody('Capsule agent') })
    expect(agent.status).toBe(201)
    agentId = agent.body.id
    expect((await call(origin, 'POST', '/_mock/clock/advance', { body: { seconds: 3600 } })).status).toBe(200)
    const capsule = await call(origin, 'GET', '/_mock/capsule')
    expect(capsule.status).toBe(200)
    clockAtCapture = origin.platform.clock.now()
    text = JSON.stringify(capsule.body)
  })
  afterAll(() => origin.close())

  it('holds the whole state and never a key value (nor a signing secret unless asked)', () => {
    const capsule = JSON.parse(text)
    expect(capsule).toMatchObject({ capsule: 1, mock: { seed: 1 }, webhook_secrets: 'omitted' })
    expect(capsule.clock.offset_seconds).toBe(3600)
    expect(Object.keys(capsule.state.tables)).toEqual(
      expect.arrayContaining([
        'accounts',
        'keys',
        'agents',
        'call_logs',
        'journal',
        'clock',
        'meta',
        'scenarios',
      ]),
    )
    for (const value of [key, publishable, made.key]) {
      expect(value).toMatch(/^[sp]k-svc-/)
      expect(text).not.toContain(value.slice('sk-svc-'.length))
    }
    expect(text).not.toMatch(/[sp]k-svc-[a-z0-9]{12,}|whsec_/i)
  })

  it('opens in another mock with the agent, the clock within seconds, and the keys made before', async () => {
    const other = await startTransport('http', { capsule: text })
    try {
      const agent = await call(other, 'GET', `/v1/agents/${agentId}`, { key })
      expect(agent.status).toBe(200)
      expect(agent.body.name).toBe('Capsule agent')
      expect((await call(other, 'GET', '/v1/user', { key: made.key })).status).toBe(200)
      expect((await call(other, 'GET', '/v1/agents', { key: publishable })).status).toBe(200)
      const clock = await call(other, 'GET', '/_mock/clock')
      expect(Math.abs(Date.parse(clock.body.now) - clockAtCapture)).toBeLessThan(5_000)
      // The capsule holds no key value: this mock knows the demo keys' ids, not their values.
      expect(other.platform.demo.secretKey).toBeUndefined()
      expect(other.platform.demo.secretKeyId).toBe(origin.platform.demo.secretKeyId)
    } finally {
      await other.close()
    }
  })

  it('opens over POST /_mock/capsule in a running mock, and a reset afterwards keeps the demo keys', async () => {
    const other = await startTransport('http')
    try {
      const ownKey = other.platform.demo.secretKey ?? ''
      const opened = await call(other, 'POST', '/_mock/capsule', {
        raw: text,
        headers: { 'content-type': 'application/json' },
      })
      expect(opened.status).toBe(200)
      expect(opened.body).toMatchObject({ object: 'capsule_opened', webhook_secrets: 'omitted' })
      expect(opened.body.records.agents).toBe(9)
      expect(Math.abs(Date.parse(opened.body.clock.now) - clockAtCapture)).toBeLessThan(5_000)
      expect((await call(other, 'GET', `/v1/agents/${agentId}`, { key })).status).toBe(200)
      expect((await call(other, 'GET', '/v1/user', { key: ownKey })).status).toBe(401)
      expect((await call(other, 'POST', '/_mock/reset')).status).toBe(200)
      expect((await call(other, 'GET', '/v1/user', { key })).status).toBe(200)
      expect((await call(other, 'GET', `/v1/agents/${agentId}`, { key })).status).toBe(404)
    } finally {
      await other.close()
    }
  })

  it('sets the clock of a capsule older than its lead back where it stood, behind real time', async () => {
    const capsule = JSON.parse(text)
    const twoDaysAgo = Date.now() - 2 * 86_400_000
    capsule.clock.now = new Date(twoDaysAgo).toISOString()
    const other = await startTransport('http')
    try {
      const opened = await call(other, 'POST', '/_mock/capsule', { body: capsule })
      expect(opened.status).toBe(200)
      const clock = await call(other, 'GET', '/_mock/clock')
      expect(clock.status).toBe(200)
      expect(clock.body.offset_seconds).toBeLessThan(-2 * 86_400 + 10)
      expect(Math.abs(Date.parse(clock.body.now) - twoDaysAgo)).toBeLessThan(5_000)
    } finally {
      await other.close()
    }
  })

  it('opens a capsule larger than the 1 MiB other requests may send', async () => {
    const big = await createMockPlatform({ seedSize: { callLogs: 2_000 } })
    const capsule = JSON.stringify(await big.capsule())
    expect(capsule.length).toBeGreaterThan(MiB)
    const other = await startTransport('http')
    try {
      const opened = await call(other, 'POST', '/_mock/capsule', {
        raw: capsule,
        headers: { 'content-type': 'application/json' },
      })
      expect(opened.status).toBe(200)
      expect(opened.body.records.call_logs).toBe(2_000)
    } finally {
      await other.close()
    }
  })

  const refusals: [string, () => string, number, RegExp][] = [
    ['damaged (cut short)', () => text.slice(0, text.length / 2), 400, /not valid JSON/],
    [
      'of an unknown version',
      () => text.replace('"capsule":1', '"capsule":2'),
      422,
      /Capsule version 2 is not one this mock opens/,
    ],
    [
      'holding an agent the contract refuses',
      () => withRecord(text, 'agents', (agent) => ({ ...agent, name: 42 })),
      422,
      /table 'agents', record '[^']+', field 'name'/,
    ],
    [
      'holding a key record without its digest',
      () => withRecord(text, 'keys', ({ hash: _, ...rest }) => rest),
      422,
      /table 'keys', record 'key_[^']+', field 'hash': is missing/,
    ],
    [
      'holding a table this mock does not have',
      () => {
        const capsule = JSON.parse(text)
        capsule.state.tables.invoices = []
        return JSON.stringify(capsule)
      },
      422,
      /table 'invoices': is not a table of this mock/,
    ],
    [
      'with a clock that reads no time',
      () => {
        const capsule = JSON.parse(text)
        capsule.clock.now = 'yesterday'
        return JSON.stringify(capsule)
      },
      422,
      /'clock\.now'/,
    ],
  ]

  it.each(refusals)(
    'refuses a capsule %s with one line, over HTTP, changing nothing',
    async (_, make, status, message) => {
      const before = stateOf(origin.platform)
      const refused = await call(origin, 'POST', '/_mock/capsule', {
        raw: make(),
        headers: { 'content-type': 'application/json' },
      })
      expect(refused.status).toBe(status)
      expect(refused.body.error.message).not.toContain('\n')
      if (status === 422) expect(refused.body.error.message).toMatch(message)
      expect(stateOf(origin.platform)).toBe(before)
    },
  )

  it.each(refusals)(
    'refuses a capsule %s in-process (CapsuleError), changing nothing',
    async (_, make, _status, message) => {
      const platform = await createMockPlatform()
      const before = stateOf(platform)
      const error = await platform.openCapsule(make()).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(CapsuleError)
      expect((error as Error).message).toMatch(message)
      expect((error as Error).message).not.toContain('\n')
      expect(stateOf(platform)).toBe(before)
      await expect(createMockPlatform({ capsule: make() })).rejects.toThrow(message)
    },
  )

  it('refuses a capsule over 64 MiB before parsing it, changing nothing', async () => {
    const platform = await createMockPlatform()
    const before = stateOf(platform)
    const oversize = `${text.slice(0, -1)},"padding":"${'x'.repeat(64 * MiB)}"}`
    await expect(platform.openCapsule(oversize)).rejects.toThrow(
      /^The capsule is 64\.\d MiB; a capsule holds at most 64 MiB\.$/,
    )
    expect(stateOf(platform)).toBe(before)
  })

  it('answers 413 to a capsule body over 64 MiB without reading it, changing nothing', async () => {
    const before = stateOf(origin.platform)
    const status = await new Promise<number>((resolve, reject) => {
      const { port } = new URL(origin.origin)
      const req = httpRequest({
        port,
        host: '127.0.0.1',
        method: 'POST',
        path: '/_mock/capsule',
        headers: { 'content-type': 'application/json', 'content-length': String(64 * MiB + 1) },
      })
      req.on('response', (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on('error', reject)
      req.write('{')
    })
    expect(status).toBe(413)
    expect(stateOf(origin.platform)).toBe(before)
  })
})

describe('the webhook signing secrets in a capsule', () => {
  const TOKEN = 'capsule-admin-token-0123456789'
  let platform: MockPlatform
  let secret: string
  const auth = { authorization: `Bearer ${TOKEN}` }

  beforeAll(async () => {
    platform = await createMockPlatform({ adminToken: TOKEN, checkResponses: true })
    const created = await platform.handle(
      post(`/_mock/accounts/${platform.demo.account.id}/webhook-secret`, '', { headers: auth }),
    )
    expect(created.status).toBe(201)
    secret = (created.body as { value: string }).value
  })

  it.each([
    { case: 'without asking, on loopback', query: '', clientIp: '127.0.0.1', status: 200, included: false },
    {
      case: 'asked, in-process',
      query: '?webhook_secrets=include',
      clientIp: undefined,
      status: 200,
      included: true,
    },
    {
      case: 'asked, on loopback',
      query: '?webhook_secrets=include',
      clientIp: '::ffff:127.0.0.1',
      status: 200,
      included: true,
    },
    {
      case: 'asked, from another machine with the admin token',
      query: '?webhook_secrets=include',
      clientIp: '10.1.2.3',
      status: 403,
      included: false,
    },
    {
      case: 'without asking, from another machine with the admin token',
      query: '',
      clientIp: '10.1.2.3',
      status: 200,
      included: false,
    },
  ])('$case: $status, the secret included: $included', async ({ query, clientIp, status, included }) => {
    const answer = await platform.handle(
      request('GET', `/_mock/capsule${query}`, { clientIp, headers: auth }),
    )
    expect(answer.status).toBe(status)
    // A capsule is answered as JSON bytes; an error as a JSON value.
    const body =
      answer.body instanceof Uint8Array ? new TextDecoder().decode(answer.body) : JSON.stringify(answer.body)
    expect(body.includes(secret.slice('whsec_'.length))).toBe(included)
    if (status === 200) expect(JSON.parse(body).webhook_secrets).toBe(included ? 'included' : 'omitted')
    else expect(JSON.parse(body).error.code).toBe('loopback_only')
  })

  it('carries the secret to the other mock when it was asked for, and none otherwise', async () => {
    const id = platform.demo.account.id
    const withSecrets = await createMockPlatform({
      capsule: await platform.capsule({ webhookSecrets: true }),
    })
    const without = await createMockPlatform({ capsule: await platform.capsule() })
    const secretOf = (p: MockPlatform) => p.handle(request('GET', `/_mock/accounts/${id}/webhook-secret`))
    expect((await secretOf(withSecrets)).body).toMatchObject({ exists: true })
    expect((await secretOf(without)).body).toMatchObject({ exists: false })
  })
})

/** A store that cannot keep any step that changes durable data (a full disk). */
function failingStore(): StateStore & { failing: boolean } {
  let state: EngineState | undefined
  return {
    description: 'failing',
    failing: false,
    load: async () => undefined,
    async attach(s: EngineState) {
      state = s
    },
    async run(step) {
      const result = step()
      const set = state?.take()
      if (this.failing && set?.durable && state) {
        state.undo(set)
        throw new StoreUnavailable('the disk is full')
      }
      return result
    },
    async close() {},
  }
}

describe('a capsule opened through the store', () => {
  it('is kept by a file store: a restart without the capsule continues from it', async () => {
    const source = await createMockPlatform({ seed: 7 })
    const created = await source.handle(
      post('/v1/agents', JSON.stringify(agentBody('Stored agent')), {
        headers: { 'content-type': 'application/json', authorization: `Bearer ${source.demo.secretKey}` },
      }),
    )
    const agentId = (created.body as { id: string }).id
    const capsule = await source.capsule()
    const folder = mkdtempSync(join(tmpdir(), 'vak-capsule-'))
    try {
      const path = join(folder, 'state.json')
      const first = await createMockPlatform({ store: createFileStore(path), capsule })
      await first.close()
      const second = await createMockPlatform({ store: createFileStore(path) })
      const agent = await second.handle(
        request('GET', `/v1/agents/${agentId}`, {
          headers: { authorization: `Bearer ${source.demo.secretKey}` },
        }),
      )
      expect(agent.status).toBe(200)
      await second.close()
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })

  it('is undone when the store cannot keep it: 503, the state as it was', async () => {
    const source = await createMockPlatform({ seed: 3 })
    const capsule = JSON.stringify(await source.capsule())
    const store = failingStore()
    const platform = await createMockPlatform({ store })
    const before: StateSnapshot = platform.snapshot()
    store.failing = true
    const answer = await platform.handle(post('/_mock/capsule', capsule))
    expect(answer.status).toBe(503)
    expect(JSON.stringify(platform.snapshot())).toBe(JSON.stringify(before))
    await expect(platform.openCapsule(capsule)).rejects.toThrow(StoreUnavailable)
    expect(JSON.stringify(platform.snapshot())).toBe(JSON.stringify(before))
  })

  it('leaves the reset as it was when the store could not keep the capsule: the demo keys stay this mock’s', async () => {
    // Same seed, same demo account: a capsule kept would make a reset keep the capsule's demo keys.
    const source = await createMockPlatform()
    const capsule = await source.capsule()
    const store = failingStore()
    const platform = await createMockPlatform({ store })
    const own = platform.demo.secretKey ?? ''
    store.failing = true
    await expect(platform.openCapsule(capsule)).rejects.toThrow(StoreUnavailable)
    store.failing = false
    await platform.reset()
    const user = (key: string) =>
      platform.handle(request('GET', '/v1/user', { headers: { authorization: `Bearer ${key}` } }))
    expect((await user(own)).status).toBe(200)
    expect((await user(source.demo.secretKey ?? '')).status).toBe(401)
  })
})

import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import type { Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { parseMockFlags, startMock } from '../../cli/mock/mock-command.ts'
import type { EngineRequest } from '../../mocks/engine/types.ts'
import { createMockPlatform, type MockPlatform } from '../../mocks/platform.ts'
import { createHttpServer, listen } from '../../mocks/server/http-server.ts'
import { isLoopbackHost } from '../../mocks/server/loopback-host.ts'
import { errorProblems } from './support/error-schema.ts'
import { httpJson, provisionAccount } from './support/http-json.ts'
import { type SpawnedMock, spawnMock } from './support/spawn-mock.ts'

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789'

/** The CLI's flags for `voice-api-kit mock --port 0 <args>`. */
function flagsOf(args: string[]) {
  const flags = parseMockFlags(['--port', '0', ...args])
  if (flags === 'help') throw new Error('unreachable')
  return flags
}

function control(platform: MockPlatform, clientIp: string | undefined, headers: Record<string, string> = {}) {
  const request: EngineRequest = { method: 'GET', url: '/_mock/clock', headers, body: null, clientIp }
  return platform.handle(request)
}

describe('the control plane without --admin-token', () => {
  let platform: MockPlatform
  beforeAll(async () => {
    platform = await createMockPlatform()
  })

  it.each([
    ['127.0.0.1', 200],
    ['127.3.4.5', 200],
    ['::1', 200],
    ['::ffff:127.0.0.1', 200],
    ['10.0.0.1', 403],
    ['192.0.2.7', 403],
    ['::ffff:10.0.0.1', 403],
    ['2001:db8::1', 403],
    ['fe80::1', 403],
    ['', 403],
  ])('answers a client at %j with %i', async (clientIp, status) => {
    const response = await control(platform, clientIp)
    expect(response.status).toBe(status)
    if (status === 403) {
      expect((response.body as { error: { code: string } }).error.code).toBe('loopback_only')
      expect(errorProblems('/_mock/clock', response.status, response.headers, response.body)).toEqual([])
    }
  })

  it('ignores forwarding headers: a remote client claiming to be 127.0.0.1 is refused', async () => {
    const response = await control(platform, '203.0.113.9', {
      'x-forwarded-for': '127.0.0.1',
      'x-real-ip': '127.0.0.1',
      forwarded: 'for=127.0.0.1',
    })
    expect(response.status).toBe(403)
  })

  it('is given the socket address by the HTTP server, not a header', async () => {
    const seen: (string | undefined)[] = []
    const server: Server = createHttpServer(() => ({
      handle: async (request) => {
        seen.push(request.clientIp)
        return { status: 204, headers: {}, body: undefined }
      },
    }))
    const { port } = await listen(server, 0, '127.0.0.1')
    try {
      await httpJson(`http://127.0.0.1:${port}`, 'GET', '/_mock/clock', {
        headers: { 'x-forwarded-for': '10.9.9.9' },
      })
      expect(seen).toEqual(['127.0.0.1'])
    } finally {
      server.close()
    }
  })
})

describe('the control plane with --admin-token', () => {
  let platform: MockPlatform
  beforeAll(async () => {
    platform = await createMockPlatform({ adminToken: ADMIN_TOKEN })
  })

  it.each([
    ['no Authorization header', {}, '127.0.0.1', 401],
    [
      'a wrong token of the same length',
      { authorization: `Bearer ${'x'.repeat(ADMIN_TOKEN.length)}` },
      '127.0.0.1',
      401,
    ],
    [
      'the token without its last character',
      { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}` },
      '127.0.0.1',
      401,
    ],
    ['the token and more', { authorization: `Bearer ${ADMIN_TOKEN}x` }, '127.0.0.1', 401],
    ['the token as Basic', { authorization: `Basic ${ADMIN_TOKEN}` }, '127.0.0.1', 401],
    [
      'an API key instead of the token',
      { authorization: 'Bearer sk-svc-0000000000000000000000000000000000000000' },
      '127.0.0.1',
      401,
    ],
    ['the token, from loopback', { authorization: `Bearer ${ADMIN_TOKEN}` }, '127.0.0.1', 200],
    ['the token, from a remote address', { authorization: `Bearer ${ADMIN_TOKEN}` }, '192.0.2.7', 200],
    ['the token with a lower-case scheme', { authorization: `bearer ${ADMIN_TOKEN}` }, '192.0.2.7', 200],
    ['no token, from a remote address', {}, '192.0.2.7', 401],
  ])('answers %s with %i', async (_case, headers, clientIp, status) => {
    const response = await control(platform, clientIp, headers as Record<string, string>)
    expect(response.status).toBe(status)
    const text = JSON.stringify(response)
    expect(text.includes(ADMIN_TOKEN)).toBe(false)
    if (status === 401) {
      expect((response.body as { error: { code: string } }).error.code).toBe('invalid_admin_token')
      expect(errorProblems('/_mock/clock', response.status, response.headers, response.body)).toEqual([])
    }
  })

  it('does not accept the token in the query string', async () => {
    const response = await platform.handle({
      method: 'GET',
      url: `/_mock/clock?token=${ADMIN_TOKEN}&admin_token=${ADMIN_TOKEN}`,
      headers: {},
      body: null,
      clientIp: '127.0.0.1',
    })
    expect(response.status).toBe(401)
  })
})

describe('--admin-token over HTTP (the CLI)', () => {
  let mock: SpawnedMock
  beforeAll(async () => {
    mock = await spawnMock(['--admin-token', ADMIN_TOKEN])
  })
  afterAll(() => mock.kill('SIGTERM'))

  it('requires the token on the control plane and never prints it', async () => {
    const refused = await httpJson(mock.origin, 'GET', '/_mock/accounts')
    expect(refused.status).toBe(401)
    const wrong = await httpJson(mock.origin, 'GET', '/_mock/accounts', {
      key: `${ADMIN_TOKEN.slice(0, -1)}Z`,
    })
    expect(wrong.status).toBe(401)
    const allowed = await httpJson(mock.origin, 'GET', '/_mock/accounts', { key: ADMIN_TOKEN })
    expect(allowed.status).toBe(200)
    expect(mock.output()).toContain('(admin token required)')
    expect(mock.output().includes(ADMIN_TOKEN)).toBe(false)
  })
})

/**
 * Whether `text` holds the secret part of a key value in any form: after undoing percent-encoding
 * (as often as it was applied) and whatever the case.
 */
function leaks(text: string, value: string): boolean {
  let decoded = text
  for (let i = 0; i < 5; i++)
    decoded = decoded.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    )
  return decoded.toLowerCase().includes(value.slice('sk-svc-'.length).toLowerCase())
}

describe('key values', () => {
  let folder: string
  let mock: SpawnedMock
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'vak-secrets-'))
    mock = await spawnMock([
      '--state-file',
      join(folder, 'state.json'),
      '--keys-file',
      join(folder, 'keys.json'),
    ])
    // The keys file is written just before the banner.
    for (let i = 0; i < 100 && !existsSync(join(folder, 'keys.json')); i++)
      await new Promise((resolve) => setTimeout(resolve, 20))
  })
  afterAll(async () => {
    await mock.kill('SIGTERM')
    rmSync(folder, { recursive: true, force: true })
  })

  it('appear in no error body, journal entry, state file or log line beyond the start-up banner', async () => {
    const demo = JSON.parse(readFileSync(join(folder, 'keys.json'), 'utf8')) as {
      account_id: string
      secret_key: string
      publishable_key: string
    }
    const limits = { hourly: 1_000_000, burst: 1_000_000 }
    await httpJson(mock.origin, 'PATCH', `/_mock/accounts/${demo.account_id}`, { body: { limits } })
    const { accountId, keyId, key } = await provisionAccount(mock.origin, { plan: 'enterprise', limits })
    const secrets = [demo.secret_key, demo.publishable_key, key]
    const bodies: unknown[] = []
    const keep = async (p: Promise<{ status: number; body: unknown }>) => {
      const r = await p
      if (r.status >= 400) bodies.push(r.body)
      return r
    }
    for (const value of secrets) {
      await keep(httpJson(mock.origin, 'GET', '/v1/user', { key: value }))
      await keep(httpJson(mock.origin, 'GET', '/v1/user', { key: `${value}x` }))
      await keep(httpJson(mock.origin, 'GET', '/v1/user', { key: value.slice(0, -1) }))
      await keep(httpJson(mock.origin, 'GET', '/v1/user', { headers: { authorization: `Basic ${value}` } }))
      await keep(httpJson(mock.origin, 'GET', `/v1/user?api_key=${value}`))
      await keep(httpJson(mock.origin, 'GET', `/v1/agents?${value}=1`, { key: demo.secret_key }))
      await keep(httpJson(mock.origin, 'GET', `/v1/agents/${value}`, { key: demo.secret_key }))
      await keep(httpJson(mock.origin, 'GET', `/v1/${value}`, { key: value }))
      await keep(httpJson(mock.origin, 'GET', `/_mock/accounts/${value}`))
      await keep(
        httpJson(mock.origin, 'POST', '/v1/agents', {
          key: demo.secret_key,
          body: { name: 'x', [value]: 1 },
        }),
      )
      // The same value in other forms: percent-encoded (once, twice, in full), upper-case.
      const encoded = `%${value.charCodeAt(0).toString(16)}${value.slice(1)}`
      const everyByte = [...value].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('')
      const upper = `${value.slice(0, 7).toUpperCase()}${value.slice(7)}`
      for (const form of [encoded, `%25${encoded.slice(1)}`, everyByte, upper, value.toUpperCase()]) {
        await keep(httpJson(mock.origin, 'GET', `/v1/${form}`, { key: demo.secret_key }))
        await keep(httpJson(mock.origin, 'GET', `/v1/agents/${form}`, { key: demo.secret_key }))
        await keep(httpJson(mock.origin, 'GET', `/_mock/accounts/${form}`))
        await keep(httpJson(mock.origin, 'GET', `/v1/agents?${form}=1`, { key: demo.secret_key }))
      }
      // A key pasted as an Idempotency-Key: it works as one, and is kept only as a digest.
      const body = {
        name: 'idem',
        voice: { provider: 'elevenlabs', voice_id: 'r' },
        llm: { provider: 'openai', model: 'm' },
      }
      const created = await httpJson(mock.origin, 'POST', '/v1/agents', {
        key: demo.secret_key,
        headers: { 'idempotency-key': value },
        body,
      })
      expect(created.status).toBe(201)
      const replayed = await httpJson(mock.origin, 'POST', '/v1/agents', {
        key: demo.secret_key,
        headers: { 'idempotency-key': value },
        body,
      })
      expect(replayed.headers['idempotent-replayed']).toBe('true')
      expect(replayed.body.id).toBe(created.body.id)
    }
    await keep(httpJson(mock.origin, 'POST', `/_mock/keys/${keyId}/revoke`))
    await keep(httpJson(mock.origin, 'GET', '/v1/user', { key }))
    await keep(httpJson(mock.origin, 'GET', `/_mock/accounts/${accountId}/keys`))
    expect(bodies.length).toBeGreaterThan(25)

    const journal = await httpJson(mock.origin, 'GET', '/_mock/journal?limit=1000')
    expect(journal.status).toBe(200)
    const stateText = readFileSync(join(folder, 'state.json'), 'utf8')
    await mock.kill('SIGTERM')
    const lines = mock.output().split('\n')
    const afterBanner = lines.filter((line) => !/^\s+export (SECRET|PUBLISHABLE)_KEY=/.test(line)).join('\n')
    for (const value of secrets) {
      expect(leaks(JSON.stringify(bodies), value)).toBe(false)
      expect(leaks(JSON.stringify(journal.body), value)).toBe(false)
      expect(leaks(stateText, value)).toBe(false)
      expect(leaks(afterBanner, value)).toBe(false)
    }
    // The banner shows the demo keys once, at start-up.
    expect(lines.filter((line) => line.includes(demo.secret_key))).toHaveLength(1)
  })
})

describe('binding', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.0.0.2', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['[::ffff:7f00:2]', true],
    ['::ffff:a00:1', false],
    ['0.0.0.0', false],
    ['::', false],
    ['192.0.2.2', false],
    ['10.0.0.5', false],
    ['fd00::2', false],
    ['example.com', false],
    ['127.example.com', false],
  ])('treats --host %s as loopback: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback)
  })

  it('prints no warning on a loopback address other than 127.0.0.1, and uses the slow-client timeouts', async () => {
    const lines: string[] = []
    const running = await startMock(flagsOf(['--host', '127.0.0.2', '--quiet']), (line) => lines.push(line))
    try {
      expect(lines.join('\n')).not.toContain('warning')
      expect(running.server.headersTimeout).toBe(10_000)
      expect(running.server.requestTimeout).toBe(30_000)
      expect(running.server.keepAliveTimeout).toBe(5_000)
    } finally {
      await running.close()
    }
  })
})

describe('--keys-file', () => {
  let folder: string
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'vak-keys-file-'))
  })
  afterEach(() => rmSync(folder, { recursive: true, force: true }))

  async function startWithKeysFile(keysFile: string) {
    const running = await startMock(flagsOf(['--quiet', '--keys-file', keysFile]), () => {})
    await running.close()
  }

  it('is owner-only (mode 600) even when a world-readable file was there before', async () => {
    const keysFile = join(folder, 'keys.json')
    writeFileSync(keysFile, '{}', { mode: 0o644 })
    await startWithKeysFile(keysFile)
    expect(statSync(keysFile).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(keysFile, 'utf8')).secret_key).toMatch(/^sk-svc-/)
  })

  it('replaces a link at its path instead of writing the keys into the link target', async () => {
    const keysFile = join(folder, 'keys.json')
    const victim = join(folder, 'victim.txt')
    writeFileSync(victim, 'precious\n', { mode: 0o644 })
    symlinkSync(victim, keysFile)
    await startWithKeysFile(keysFile)
    expect(readFileSync(victim, 'utf8')).toBe('precious\n')
    expect(statSync(victim).mode & 0o777).toBe(0o644)
    expect(lstatSync(keysFile).isSymbolicLink()).toBe(false)
    expect(statSync(keysFile).mode & 0o777).toBe(0o600)
  })
})

describe('the control plane, dashboard and docs behind the Host check (DNS rebinding)', () => {
  let running: Awaited<ReturnType<typeof startMock>>
  let origin: string
  beforeAll(async () => {
    running = await startMock(flagsOf(['--quiet', '--allowed-hosts', 'mock.internal,.dev.example']), () => {})
    origin = running.baseUrl.replace(/\/v1$/, '')
  })
  afterAll(() => running.close())

  const accountId = () => running.platform.demo.account.id
  const keyCount = () => running.platform.keys.list(accountId()).length

  it('refuses the rebinding attack of the report: a same-origin page at evil.example:4100 creates no key', async () => {
    const before = keyCount()
    const response = await httpJson(origin, 'POST', `/_mock/accounts/${accountId()}/keys`, {
      headers: {
        host: 'evil.example:4100',
        origin: 'http://evil.example:4100',
        'sec-fetch-site': 'same-origin',
      },
      body: { type: 'secret', name: 'x' },
    })
    expect(response.status).toBe(403)
    expect(response.body.error.code).toBe('host_not_allowed')
    expect(response.body.error.message).toContain('evil.example')
    expect(response.body.error.message).toContain('--allowed-hosts')
    expect(JSON.stringify(response.body)).not.toMatch(/[sp]k-svc-/)
    expect(errorProblems('/_mock/accounts/x/keys', 403, response.headers, response.body)).toEqual([])
    expect(keyCount()).toBe(before)
  })

  it.each([
    ['GET', '/_mock/dashboard'],
    ['GET', '/_mock/dashboard/main.js'],
    ['GET', '/_mock/docs'],
    ['GET', '/_mock/clock'],
    ['GET', '/_mock/journal'],
    ['POST', '/_mock/reset'],
    ['POST', '/_mock/clock/advance'],
  ])('answers %s %s for another name with 403 host_not_allowed', async (method, path) => {
    const offset = running.platform.clock.offsetSeconds()
    const response = await httpJson(origin, method, path, {
      headers: { host: 'rebound.attacker.example' },
      ...(method === 'POST' && path.endsWith('advance') ? { body: { seconds: 60 } } : {}),
    })
    expect(response.status).toBe(403)
    expect(response.headers['content-type']).toMatch(/^application\/json/)
    expect(response.body.error.code).toBe('host_not_allowed')
    expect(running.platform.clock.offsetSeconds()).toBe(offset)
  })

  it.each([
    'localhost',
    'localhost:4010',
    'app.localhost',
    '127.0.0.1',
    '[::1]',
    '192.168.7.7',
    'mock.internal:4010',
    'api.dev.example',
  ])('answers the control plane for Host %s', async (host) => {
    const response = await httpJson(origin, 'GET', '/_mock/clock', { headers: { host } })
    expect(response.status).toBe(200)
  })

  it('leaves the v1 API reachable under any name (it needs a key, and sends CORS headers anyway)', async () => {
    const response = await httpJson(origin, 'GET', '/v1/user', {
      key: running.platform.demo.secretKey,
      headers: { host: 'api.attacker.example' },
    })
    expect(response.status).toBe(200)
  })

  it('is off in-process (MSW adapters have no Host to check: their handlers match the base URL)', async () => {
    const platform = await createMockPlatform()
    const response = await platform.handle({
      method: 'GET',
      url: '/_mock/clock',
      headers: { host: 'evil.example' },
      body: null,
    })
    expect(response.status).toBe(200)
  })
})

describe('--allowed-hosts', () => {
  it.each([
    [
      ['--allowed-hosts', 'a.example,.b.example'],
      ['a.example', '.b.example'],
    ],
    [
      ['--allowed-hosts', ' A.Example , b.example '],
      ['a.example', 'b.example'],
    ],
    [[], []],
  ])('parses %j', (args, hosts) => {
    const flags = parseMockFlags(args)
    expect(flags !== 'help' && flags.allowedHosts).toEqual(hosts)
  })

  it.each(['', '*', 'http://a.example', 'a.example:4010', '.com', 'a.example,,b.example'])(
    'refuses %j with a usage error',
    (value) => {
      expect(() => parseMockFlags(['--allowed-hosts', value])).toThrow(/--allowed-hosts/)
    },
  )
})

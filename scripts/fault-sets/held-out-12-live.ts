/**
 * Shows that every fault of held-out fault set 12 is live: for each one, a short scenario (accounts and keys
 * provisioned through the control plane, keys revoked there, simulated calls started there, then v1 requests sent as
 * a client sends them, with other keys, origins or key values where the fault lies, the mock clock moved where time
 * matters) is run against a fresh correct engine, again against another fresh correct engine (the scenario must
 * observe the same thing twice: nothing random leaks into it), and against a fresh engine wrapped in the fault. A
 * fault is LIVE when its observation differs from the correct one. Ordinary traffic (the first reads of every
 * endpoint, a create and a read) is also run through each fault, which should leave it unchanged. The engines'
 * clocks are frozen at one instant and move only when a scenario advances them, so that every run sees the same
 * times (`node --import tsx scripts/fault-sets/held-out-12-live.ts`).
 */
import { faults } from '../../test/fault-sets/held-out-12.ts'
import { type Answer, type Api, at, errorCode, revoke, seconds, showLive } from './live-harness.ts'

// -------------------------------------------------------------------------------------------- helpers

/** The error's extra fields (beyond type, code, message and request_id), by name. */
const errorFields = (answer: Answer) => Object.keys(answer.body?.error ?? {}).sort()

/** The keys of an account, as the control plane lists them. */
const keysOf = async (api: Api, account: string) =>
  (await api.call('GET', `/_mock/accounts/${account}/keys`, undefined, { key: '' })).body.data as {
    id: string
    name: string
    status: string
    last_used_at: string | null
    revoked_at: string | null
    redacted_value: string
  }[]

const SPEC = 'https://app.example.com'

// -------------------------------------------------------------------------------------------- scenarios

const scenarios: Record<string, (api: Api) => Promise<unknown>> = {
  // ------------------------------------------------------------------------------------------ key formats
  async 'prefix-not-part-of-the-key'(api) {
    const key = await api.key(await api.account())
    const swapped = `pk-svc-${key.slice(7)}`
    const user = await api.call('GET', '/v1/user', undefined, { key: swapped })
    const agents = await api.call('GET', '/v1/agents', undefined, { key: swapped })
    return { user: [user.status, errorCode(user)], agents: agents.status }
  },

  async 'key-matched-ignoring-case'(api) {
    const key = await api.key(await api.account())
    const recased = `${key.slice(0, 7)}${[...key.slice(7)]
      .map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()))
      .join('')}`
    const user = await api.call('GET', '/v1/user', undefined, { key: recased })
    return { same: recased === key, user: [user.status, errorCode(user)] }
  },

  async 'key-read-to-its-length'(api) {
    const key = await api.key(await api.account())
    const longer = await api.call('GET', '/v1/user', undefined, { key: `${key}0` })
    const noted = await api.call('GET', '/v1/agents', undefined, { key: `${key} spare` })
    return { longer: [longer.status, errorCode(longer)], noted: [noted.status, errorCode(noted)] }
  },

  async 'restricted-key-value-from-nanoid'(api) {
    const account = await api.account()
    const reader = await api.keyRecord(account, { permissions: ['read'] })
    const agents = await api.call('GET', '/v1/agents', undefined, { key: reader.value })
    return {
      random_length: reader.value.length - 7,
      base62: /^sk-svc-[A-Za-z0-9]{32,}$/.test(reader.value),
      works: agents.status,
    }
  },

  async 'publishable-key-with-secret-prefix'(api) {
    const account = await api.account()
    const made = await api.call(
      'POST',
      `/_mock/accounts/${account}/keys`,
      { type: 'publishable', name: 'widget' },
      { key: '' },
    )
    const listed = (await keysOf(api, account))[0]
    const agents = await api.call('GET', '/v1/agents', undefined, { key: made.body.value })
    return {
      value: String(made.body.value).slice(0, 7),
      redacted: String(made.body.redacted_value).slice(0, 7),
      listed: listed?.redacted_value.slice(0, 7),
      works: agents.status,
    }
  },

  // --------------------------------------------------------------------------------- what errors reveal
  async 'invalid-key-named-by-its-start'(api) {
    const key = await api.key(await api.account())
    const altered = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`
    const refused = await api.call('GET', '/v1/user', undefined, { key: altered })
    const message = String(refused.body.error?.message)
    return {
      status: refused.status,
      shows_start: message.includes(altered.slice(7, 15)),
      shows_end: message.includes(altered.slice(-4)),
    }
  },

  async 'dead-key-401-names-its-id'(api) {
    const account = await api.account()
    const doomed = await api.keyRecord(account)
    await revoke(api, doomed.id)
    const refused = await api.call('GET', '/v1/user', undefined, { key: doomed.value })
    return { status: refused.status, fields: errorFields(refused) }
  },

  async 'key-restricted-shows-the-allowlist'(api) {
    const account = await api.account()
    const web = await api.keyRecord(account, { restrictions: { allowed_origins: [SPEC] } })
    const refused = await api.call('GET', '/v1/agents', undefined, {
      key: web.value,
      headers: { origin: 'https://evil.example' },
    })
    return { status: refused.status, code: errorCode(refused), fields: errorFields(refused) }
  },

  async 'short-credential-quoted-in-422'(api) {
    await api.key(await api.account())
    const refused = await api.call('PATCH', '/v1/integrations/slack', {
      credentials: { bot_token: 'xoxb-1' },
    })
    return { status: refused.status, quoted: JSON.stringify(refused.body).includes('xoxb-1') }
  },

  async 'unknown-parameter-quoted-with-value'(api) {
    const key = await api.key(await api.account())
    const refused = await api.call('GET', `/v1/agents?api_key=${key}`)
    return {
      status: refused.status,
      code: errorCode(refused),
      whole_key: String(refused.body.error?.message).includes(key),
    }
  },

  // ------------------------------------------------------------------------------------------- scopes
  async 'write-group-expanded-by-suffix'(api) {
    const account = await api.account()
    await api.key(account, { permissions: ['write'] })
    const agent = await api.agent('doomed')
    const removed = await api.call('DELETE', `/v1/agents/${agent}`)
    const after = await api.call('GET', `/v1/agents/${agent}`)
    return {
      removed: [removed.status, removed.body.error?.required_permission ?? null],
      after: after.status,
    }
  },

  async 'call-log-delete-needs-read-scope'(api) {
    const account = await api.account()
    await api.key(account)
    const call = await api.startCall(account, await api.agent('a'), { duration_seconds: 10 })
    await api.advance(100)
    const cleaner = await api.keyRecord(account, { permissions: ['resources:delete'] })
    const removed = await api.call('DELETE', `/v1/call-logs/${call}`, undefined, { key: cleaner.value })
    const after = await api.call('GET', `/v1/call-logs/${call}`)
    return {
      removed: [removed.status, removed.body.error?.required_permission ?? null],
      after: after.status,
    }
  },

  async 'publishable-key-reads-analytics'(api) {
    const account = await api.account()
    await api.key(account)
    const widget = await api.keyRecord(account, { type: 'publishable', name: 'widget' })
    const stats = await api.call('GET', '/v1/analytics/calls', undefined, { key: widget.value })
    return { status: stats.status, code: errorCode(stats) }
  },

  async 'head-skips-the-scope-check'(api) {
    const account = await api.account()
    await api.key(account)
    const call = await api.startCall(account, await api.agent('a'))
    const agentsOnly = await api.keyRecord(account, { permissions: ['agents:read'] })
    const known = await api.call('HEAD', `/v1/call-logs/${call}`, undefined, { key: agentsOnly.value })
    const unknown = await api.call('HEAD', '/v1/call-logs/call_0000000000000000', undefined, {
      key: agentsOnly.value,
    })
    return { known: known.status, unknown: unknown.status }
  },

  async 'scope-compared-by-area'(api) {
    const account = await api.account()
    await api.key(account)
    const reader = await api.keyRecord(account, { permissions: ['agents:read', 'integrations:read'] })
    const created = await api.call(
      'POST',
      '/v1/agents',
      {
        name: 'x',
        voice: { provider: 'openai', voice_id: 'alloy' },
        llm: { provider: 'openai', model: 'm' },
      },
      { key: reader.value },
    )
    const enabled = await api.call(
      'PATCH',
      '/v1/integrations/slack',
      { enabled: true },
      { key: reader.value },
    )
    const agents = await api.call('GET', '/v1/agents')
    return {
      created: [created.status, errorCode(created)],
      enabled: [enabled.status, errorCode(enabled)],
      agents: agents.body.data.length,
    }
  },

  // -------------------------------------------------------------------------------------- restrictions
  async 'loopback-skips-ip-restriction'(api) {
    const account = await api.account()
    const office = await api.keyRecord(account, { restrictions: { allowed_ips: ['203.0.113.0/24'] } })
    const user = await api.call('GET', '/v1/user', undefined, { key: office.value })
    return { status: user.status, code: errorCode(user) }
  },

  async 'origins-enforced-for-publishable-keys-only'(api) {
    const account = await api.account()
    const backend = await api.keyRecord(account, { restrictions: { allowed_origins: [SPEC] } })
    const bare = await api.call('GET', '/v1/user', undefined, { key: backend.value })
    const other = await api.call('GET', '/v1/user', undefined, {
      key: backend.value,
      headers: { origin: 'https://evil.example' },
    })
    return {
      bare: [bare.status, errorCode(bare)],
      other: [other.status, errorCode(other), other.headers['access-control-allow-origin'] ?? null],
    }
  },

  async 'origin-matched-without-scheme'(api) {
    const account = await api.account()
    const web = await api.keyRecord(account, {
      type: 'publishable',
      name: 'w',
      restrictions: { allowed_origins: [SPEC] },
    })
    const plain = await api.call('GET', '/v1/agents', undefined, {
      key: web.value,
      headers: { origin: 'http://app.example.com' },
    })
    return {
      status: plain.status,
      code: errorCode(plain),
      allow_origin: plain.headers['access-control-allow-origin'] ?? null,
    }
  },

  async 'expiry-checked-as-a-restriction'(api) {
    const account = await api.account()
    const main = await api.keyRecord(account)
    const temp = await api.keyRecord(account, { restrictions: { expires_at: at(60) } })
    await api.advance(120)
    const late = await api.call('GET', '/v1/agents', undefined, { key: temp.value })
    const user = await api.call('GET', '/v1/user', undefined, { key: main.value })
    return { late: [late.status, errorCode(late)], budget: user.headers.ratelimit }
  },

  // ----------------------------------------------------------------------------------------- lifecycle
  async 'revocation-by-key-name'(api) {
    const account = await api.account()
    const old = await api.keyRecord(account, { name: 'backend' })
    const rotated = await api.keyRecord(account, { name: 'backend' })
    await revoke(api, old.id)
    const user = await api.call('GET', '/v1/user', undefined, { key: rotated.value })
    const keys = await keysOf(api, account)
    return {
      rotated: [user.status, errorCode(user)],
      statuses: keys.map((key) => [key.id === old.id ? 'old' : 'rotated', key.status]).sort(),
    }
  },

  async 'refused-requests-touch-last-used'(api) {
    const account = await api.account()
    const old = await api.keyRecord(account)
    await api.call('GET', '/v1/user', undefined, { key: old.value })
    await revoke(api, old.id)
    await api.advance(120)
    const refused = await api.call('GET', '/v1/user', undefined, { key: old.value })
    const listed = (await keysOf(api, account)).find((key) => key.id === old.id)
    return {
      refused: refused.status,
      last_used_after_start: listed?.last_used_at ? seconds(at(0), listed.last_used_at) : null,
    }
  },

  async 'revoked-key-reported-as-invalid'(api) {
    const account = await api.account()
    const old = await api.keyRecord(account)
    await revoke(api, old.id)
    const refused = await api.call('GET', '/v1/user', undefined, { key: old.value })
    const message = String(refused.body.error?.message)
    return { status: refused.status, revoked: /revoked/.test(message), invalid: /Invalid/.test(message) }
  },

  // ----------------------------------------------------------------------------------------- isolation
  async 'agent-update-crosses-accounts'(api) {
    const owner = await api.key(await api.account())
    const agent = await api.agent('mine')
    const stranger = await api.key(await api.account())
    const patched = await api.call('PATCH', `/v1/agents/${agent}`, { name: 'taken' }, { key: stranger })
    const read = await api.call('GET', `/v1/agents/${agent}`, undefined, { key: owner })
    return { patched: [patched.status, errorCode(patched)], name: read.body.name }
  },

  async 'call-log-agent-filter-crosses-accounts'(api) {
    const owner = await api.account()
    await api.key(owner)
    const agent = await api.agent('mine')
    await api.startCall(owner, agent, { duration_seconds: 10 })
    await api.advance(100)
    const stranger = await api.key(await api.account())
    const list = await api.call('GET', `/v1/call-logs?agent_id=${agent}`, undefined, { key: stranger })
    return { status: list.status, listed: list.body.data?.length ?? null }
  },

  async 'team-member-readable-across-accounts'(api) {
    await api.key(await api.account())
    const invited = await api.call('POST', '/v1/team-members', { email: 'private@live.test' })
    const stranger = await api.key(await api.account())
    const read = await api.call('GET', `/v1/team-members/${invited.body.id}`, undefined, { key: stranger })
    return { status: read.status, email: read.body.email ?? null }
  },

  // --------------------------------------------------------------------------------------- rate limits
  async 'ratelimit-remaining-per-key'(api) {
    const account = await api.account()
    const first = await api.keyRecord(account)
    const second = await api.keyRecord(account)
    for (let i = 0; i < 3; i++) await api.call('GET', '/v1/user', undefined, { key: first.value })
    const user = await api.call('GET', '/v1/user', undefined, { key: second.value })
    return { ratelimit: user.headers.ratelimit, remaining: user.headers['x-ratelimit-remaining'] }
  },

  async 'revoked-key-rate-limited-before-refusal'(api) {
    const account = await api.account({ plan: 'free', limits: { hourly: 100, burst: 5 } })
    const live = await api.keyRecord(account)
    const dead = await api.keyRecord(account)
    await revoke(api, dead.id)
    const refused: number[] = []
    for (let i = 0; i < 3; i++)
      refused.push((await api.call('GET', '/v1/agents', undefined, { key: dead.value })).status)
    const user = await api.call('GET', '/v1/user', undefined, { key: live.value })
    for (let i = 0; i < 2; i++)
      refused.push((await api.call('GET', '/v1/agents', undefined, { key: dead.value })).status)
    return { refused, budget: user.headers.ratelimit }
  },

  // ---------------------------------------------------------------------------------------------- order
  async 'area-guard-before-method-check'(api) {
    await api.key(await api.account(), { permissions: ['read'] })
    const put = await api.call('PUT', '/v1/agents/agt_0000000000000000', { name: 'x' })
    const deleted = await api.call('DELETE', '/v1/integrations/slack')
    return {
      put: [put.status, errorCode(put), put.headers.allow ?? null],
      deleted: [deleted.status, errorCode(deleted), deleted.headers.allow ?? null],
    }
  },

  async 'scope-checked-before-rate-limit'(api) {
    const account = await api.account({ plan: 'free', limits: { hourly: 100, burst: 3 } })
    await api.key(account)
    for (let i = 0; i < 3; i++) await api.call('GET', '/v1/user')
    const reader = await api.keyRecord(account, { permissions: ['agents:read'] })
    const logs = await api.call('GET', '/v1/call-logs', undefined, { key: reader.value })
    return { status: logs.status, code: errorCode(logs), retry_after: logs.headers['retry-after'] ?? null }
  },

  async 'restrictions-checked-before-revocation'(api) {
    const account = await api.account()
    const web = await api.keyRecord(account, { restrictions: { allowed_origins: [SPEC] } })
    const before = await api.call('GET', '/v1/user', undefined, { key: web.value, headers: { origin: SPEC } })
    await revoke(api, web.id)
    const bare = await api.call('GET', '/v1/user', undefined, { key: web.value })
    return { before: before.status, bare: [bare.status, errorCode(bare)] }
  },
}

await showLive(faults, scenarios)

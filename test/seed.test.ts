import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { createAccountStore, toUser } from '../mocks/engine/accounts.ts'
import { createClock } from '../mocks/engine/clock.ts'
import type { OpenApiDocument } from '../mocks/engine/contract/document.ts'
import { createEngine } from '../mocks/engine/create-engine.ts'
import { createKeyStore } from '../mocks/engine/keys/key-store.ts'
import { type AccountData, createAccountDataStore } from '../mocks/engine/resources/account-data.ts'
import type { CallLog } from '../mocks/engine/resources/types.ts'
import { MODELS, VOICES } from '../mocks/engine/seed/catalog.ts'
import { integrationCatalog } from '../mocks/engine/seed/integration-catalog.ts'
import { type SeedSize, seedDemoAccount } from '../mocks/engine/seed/seed.ts'
import { createState } from '../mocks/engine/state/state.ts'
import { createContractAjv } from '../openapi/contract-ajv.ts'

const readContract = (name: string) =>
  parse(readFileSync(new URL(`../openapi/${name}`, import.meta.url), 'utf8')) as OpenApiDocument
const document = readContract('v1.yaml')
const NOW = Date.parse('2026-03-09T14:02:11.345Z')
const contract = createContractAjv(document, 'https://voice-api-kit.test/v1.json')

function validator(name: string) {
  const validate = contract.compile({ $ref: `#/components/schemas/${name}` })
  return (value: unknown) =>
    validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`)
}

/** Seeds with the engine's own stores and provisioning, as `createEngine` does. */
async function seedWith(seed: number, size?: SeedSize) {
  const clock = createClock({ realNow: () => NOW })
  const state = createState()
  const accounts = createAccountStore(clock, state)
  const keys = createKeyStore(clock, state)
  const store = createAccountDataStore(state)
  const catalog = integrationCatalog(document)
  let data: AccountData | undefined
  const started = performance.now()
  const demo = seedDemoAccount({
    seed,
    plan: 'pro',
    size,
    clock,
    document,
    accounts,
    keys,
    dataFor: (account) => {
      data = store.provision(account, catalog)
      return data
    },
  })
  const ms = performance.now() - started
  if (!data) throw new Error('dataFor was not called')
  return { demo, data, accounts, keys, ms, state }
}

/** Everything seeded, as plain JSON, without the key values and ids (from the CSPRNG by design). */
async function seededState(seed: number, size?: SeedSize) {
  const { demo, keys, state } = await seedWith(seed, size)
  const keyRecords = keys.list(demo.account.id).map(({ id: _id, redacted_value: _value, ...rest }) => rest)
  return JSON.stringify({ account: demo.account, keys: keyRecords, data: dataTables(state.snapshot()) })
}

/** The account data tables of a state (agents, call logs, integrations, team members, idempotency). */
function dataTables(snapshot: { tables: Record<string, unknown> }) {
  const { agents, call_logs, integrations, team_members, idempotency } = snapshot.tables
  return { agents, call_logs, integrations, team_members, idempotency }
}

/** The problems of a call log with the timing rules of the contract's `CallLogSummary`. */
function timingProblems(log: CallLog, recordingEnabled: boolean, now: number): string[] {
  const problems: string[] = []
  const expect = (ok: boolean, message: string) =>
    ok || problems.push(`${log.id} (${log.status}): ${message}`)
  const live = ['queued', 'ringing', 'in_progress'].includes(log.status)
  const connected = log.status === 'completed' || log.status === 'failed'
  const at = (value: string | null) => (value === null ? null : Date.parse(value))
  const [started, ended, created] = [at(log.started_at), at(log.ended_at), at(log.created_at) as number]
  expect((started === null) === (log.status === 'queued'), 'started_at null only while queued')
  expect(created <= (started ?? created) && created <= now, 'created_at before started_at and now')
  if (live) {
    expect(
      log.ended_at === null && log.duration_seconds === null && log.cost_usd === null,
      'ended_at, duration, cost null while not final',
    )
    expect(
      log.end_reason === null && log.analysis === null && log.recording_url === null,
      'end_reason, analysis, recording null while not final',
    )
  } else {
    expect(ended !== null && ended <= now, 'ended_at set, not in the future')
    const seconds = started === null ? 0 : Math.floor(((ended ?? 0) - started) / 1000)
    expect(
      log.duration_seconds === seconds,
      `duration ${log.duration_seconds} = ended - started (${seconds})`,
    )
    expect(/^\d+(\.\d{1,4})?$/.test(String(log.cost_usd)), 'cost with at most 4 decimals')
    expect(connected || log.cost_usd === 0, 'cost 0 for calls that never connected')
    expect(connected === (log.end_reason !== null), 'end_reason only for calls that connected')
    expect(log.status !== 'failed' || log.end_reason === 'error', 'failed calls end with error')
  }
  expect(log.status === 'completed' || log.analysis === null, 'analysis only for completed calls')
  expect(
    log.recording_url === null || (recordingEnabled && log.status === 'completed'),
    'recording only when enabled and completed',
  )
  expect(
    log.channel !== 'web' ||
      (log.from_number === null && log.to_number === null && log.direction === 'inbound'),
    'web calls: no numbers, inbound',
  )
  expect(
    log.channel !== 'phone' || (log.from_number !== null && log.to_number !== null),
    'phone calls have both numbers',
  )
  const entries = log.transcript as { role: string; start_seconds: number }[]
  entries.forEach((entry, i) => {
    const previous = entries[i - 1]
    if (previous)
      expect(
        entry.start_seconds > previous.start_seconds && entry.role !== previous.role,
        'turns alternate, in time order',
      )
    if (log.duration_seconds !== null)
      expect(entry.start_seconds < log.duration_seconds, 'utterances within the call')
  })
  if (
    log.status === 'no_answer' ||
    log.status === 'busy' ||
    log.status === 'canceled' ||
    log.status === 'queued' ||
    log.status === 'ringing'
  )
    expect(entries.length === 0, 'nothing said on a call that never connected')
  return problems
}

describe('seedDemoAccount', () => {
  it('creates the demo account with a secret and a publishable key', async () => {
    const { demo, keys, accounts } = await seedWith(1)
    expect(accounts.get(demo.account.id)).toBe(demo.account)
    expect(validator('User')(toUser(demo.account))).toEqual([])
    expect(demo.secretKey).toMatch(/^sk-svc-[0-9A-Za-z]{32,}$/)
    expect(demo.publishableKey).toMatch(/^pk-svc-[0-9A-Za-z]{32,}$/)
    const secret = keys.get(demo.secretKeyId)
    const publishable = keys.get(demo.publishableKeyId)
    expect(secret).toMatchObject({ name: 'Demo secret key', type: 'secret', account_id: demo.account.id })
    expect(secret?.permissions).toHaveLength(8)
    expect(publishable).toMatchObject({
      name: 'Demo publishable key',
      type: 'publishable',
      permissions: ['agents:read'],
    })
  })

  it('seeds objects that are all valid against their contract schemas', async () => {
    const { data } = await seedWith(1)
    const checks: [string, readonly unknown[]][] = [
      ['Agent', data.agents.values()],
      ['CallLog', data.callLogs.values()],
      ['TeamMember', data.teamMembers.values()],
      ['Integration', [...data.integrations.values()]],
    ]
    for (const [schema, objects] of checks) {
      const validate = validator(schema)
      expect(objects.length, schema).toBeGreaterThan(0)
      expect(
        objects.flatMap((object) =>
          validate(object).map((error) => `${schema} ${(object as { id: string }).id}: ${error}`),
        ),
      ).toEqual([])
    }
  })

  it('seeds the default size: 8 agents, 400 call logs, the owner and 5 members, the integration catalog', async () => {
    const { data } = await seedWith(1)
    expect([data.agents.size, data.callLogs.size, data.teamMembers.size, data.integrations.size]).toEqual([
      8, 400, 6, 7,
    ])
  })

  it.each([
    { agents: 0, callLogs: 50, teamMembers: 0 },
    { agents: 1, callLogs: 5, teamMembers: 1 },
    { agents: 30, callLogs: 100, teamMembers: 40 },
  ])('seeds valid data at size %o', async (size) => {
    const { data } = await seedWith(11, size)
    expect(data.agents.size).toBe(size.agents)
    expect(data.callLogs.size).toBe(size.agents === 0 ? 0 : size.callLogs)
    expect(data.teamMembers.size).toBe(size.teamMembers + 1)
    const [agent, log, member] = [validator('Agent'), validator('CallLog'), validator('TeamMember')]
    expect(data.agents.values().flatMap((a) => agent(a))).toEqual([])
    expect(data.callLogs.values().flatMap((l) => log(l))).toEqual([])
    expect(data.teamMembers.values().flatMap((m) => member(m))).toEqual([])
  })

  it('gives identical data for the same seed, key values and ids excepted', async () => {
    expect(await seededState(42)).toBe(await seededState(42))
  })

  it('gives different data for different seeds', async () => {
    const [a, b] = await Promise.all([seedWith(1), seedWith(2)])
    expect(a.demo.account.id).not.toBe(b.demo.account.id)
    expect(a.data.agents.values().map((agent) => agent.id)).not.toEqual(
      b.data.agents.values().map((agent) => agent.id),
    )
    expect(JSON.stringify(dataTables(a.state.snapshot()))).not.toBe(
      JSON.stringify(dataTables(b.state.snapshot())),
    )
  })

  it('keeps the agents when only the number of call logs changes', async () => {
    const [a, b] = await Promise.all([seedWith(7, { callLogs: 10 }), seedWith(7, { callLogs: 500 })])
    expect(a.data.agents.values()).toEqual(b.data.agents.values())
  })

  it('points call logs only at seeded agents, after each agent was created', async () => {
    const { data } = await seedWith(3, { callLogs: 2000 })
    for (const log of data.callLogs.values()) {
      const agent = data.agents.get(log.agent_id)
      expect(agent, log.id).toBeDefined()
      expect(log.created_at >= (agent?.created_at ?? ''), log.id).toBe(true)
    }
  })

  it('follows the call-log timing rules of the contract', async () => {
    const { data } = await seedWith(5, { callLogs: 3000 })
    const problems = data.callLogs
      .values()
      .flatMap((log) => timingProblems(log, data.agents.get(log.agent_id)?.recording_enabled === true, NOW))
    expect(problems.slice(0, 20)).toEqual([])
    const statuses = new Set(data.callLogs.values().map((log) => log.status))
    expect([...statuses].sort()).toEqual(['busy', 'canceled', 'completed', 'failed', 'no_answer'])
  })

  it('seeds only finished calls, each completed one analysed: none stays ringing or waits for an analysis', async () => {
    // Nothing moves a seeded call on (a started call moves on the schedule): a live status or a missing analysis
    // would stay as seeded forever (`ringing ... 12 min ago` on the dashboard).
    for (const seed of [1, 5, 9]) {
      const { data } = await seedWith(seed, { callLogs: 2000 })
      const logs = data.callLogs.values()
      expect(logs.filter((log) => ['queued', 'ringing', 'in_progress'].includes(log.status))).toEqual([])
      const pending = logs.filter((log) => log.status === 'completed' && log.analysis === null)
      expect(pending.map((log) => `${log.id} ended ${log.ended_at}`)).toEqual([])
      const lastEnd = Math.max(...logs.map((log) => Date.parse(log.ended_at ?? '')))
      expect(lastEnd).toBeLessThanOrEqual(NOW - 120_000)
    }
  })

  it('spreads call logs over the 30 days before now, newest first, with unique ids', async () => {
    const { data } = await seedWith(1)
    const logs = data.callLogs.values()
    const times = logs.map((log) => Date.parse(log.created_at))
    expect(Math.max(...times)).toBeLessThanOrEqual(NOW)
    expect(Math.min(...times)).toBeGreaterThanOrEqual(NOW - 31 * 86_400_000)
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(25 * 86_400_000)
    expect(new Set(logs.map((log) => log.id)).size).toBe(logs.length)
    const page = data.callLogs.page({ limit: 3 })
    expect(page.ok && page.data.map((log) => log.id)).toEqual(logs.slice(0, 3).map((log) => log.id))
  })

  it('dresses agents consistently: voice ids and models of their provider, real prompts', async () => {
    const { data } = await seedWith(9, { agents: 20 })
    const agents = data.agents.values()
    expect(new Set(agents.map((agent) => agent.name)).size).toBe(20)
    for (const agent of agents) {
      const voice = agent.voice as { provider: string; voice_id: string }
      const llm = agent.llm as { provider: string; model: string }
      expect(VOICES[voice.provider]?.map((v) => v.id)).toContain(voice.voice_id)
      expect(MODELS[llm.provider]).toContain(llm.model)
      expect(agent.system_prompt?.split('. ').length).toBeGreaterThan(3)
      expect(agent.webhook_url === null ? agent.webhook_events : []).toEqual([])
    }
  })

  it('pairs each analysis with its outcome and starts transcripts with the agent first message', async () => {
    const { data } = await seedWith(1)
    const completed = data.callLogs.values().filter((log) => log.status === 'completed' && log.analysis)
    expect(completed.length).toBeGreaterThan(250)
    for (const log of completed) {
      const agent = data.agents.get(log.agent_id)
      const first = log.transcript[0] as { role: string; text: string }
      if (agent?.first_speaker === 'agent')
        expect(first).toMatchObject({ role: 'agent', text: agent.first_message })
      if (log.analysis?.sentiment === 'negative') expect(log.analysis.successful).toBe(false)
    }
  })

  it('seeds a team with one owner, unique lower-case e-mails, and pending invitations', async () => {
    const { data, demo } = await seedWith(1)
    const members = data.teamMembers.values()
    expect(members.filter((m) => m.role === 'owner').map((m) => m.email)).toEqual([demo.account.email])
    expect(new Set(members.map((m) => m.email)).size).toBe(members.length)
    expect(members.every((m) => m.email === m.email.toLowerCase())).toBe(true)
    expect(members.some((m) => m.status === 'invited' && m.joined_at === null)).toBe(true)
  })

  it('connects a few integrations: Twilio with a number, Slack, Salesforce failing', async () => {
    const { data } = await seedWith(1)
    const twilio = data.integrations.get('twilio')
    expect(twilio).toMatchObject({ status: 'connected', enabled: true })
    expect(twilio?.config.phone_number).toMatch(/^\+[1-9][0-9]{7,14}$/)
    expect(twilio?.credential_hint).toMatch(/^\.\.\..{4}$/)
    expect(data.integrations.get('slack')?.status).toBe('connected')
    expect(data.integrations.get('salesforce')?.status).toBe('error')
    expect(data.integrations.get('zapier')?.status).toBe('not_connected')
  })

  it('seeds 100,000 call logs in a few seconds', async () => {
    const small = await seedWith(1)
    const before = process.memoryUsage().heapUsed
    const large = await seedWith(1, { callLogs: 100_000 })
    const heapMb = (process.memoryUsage().heapUsed - before) / 2 ** 20
    console.log(
      `seed: default size ${small.ms.toFixed(0)} ms; 100,000 call logs ${large.ms.toFixed(0)} ms, heap +${heapMb.toFixed(0)} MB`,
    )
    expect(large.data.callLogs.size).toBe(100_000)
    expect(large.ms).toBeLessThan(10_000)
    const validate = validator('CallLog')
    const sample = large.data.callLogs.values().filter((_, i) => i % 50 === 0)
    expect(sample.flatMap((log) => validate(log))).toEqual([])
  })

  it('serves the seeded data through the engine without a contract violation', async () => {
    const violations: string[] = []
    const engine = await createEngine({
      documents: { v1: document, control: readContract('mock-control.yaml') },
      clock: createClock({ realNow: () => NOW }),
      checkResponses: true,
      onContractViolation: (message) => violations.push(message),
    })
    const get = async (url: string, key = engine.demo.secretKey) => {
      const response = await engine.handle({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${key}` },
        body: null,
      })
      expect(response.status, url).toBe(200)
      return response.body as { data: { id: string }[] }
    }
    const logs = await get('/v1/call-logs?limit=100')
    for (const { id } of logs.data.slice(0, 25)) await get(`/v1/call-logs/${id}`)
    await get('/v1/agents?limit=100')
    await get('/v1/agents?limit=100', engine.demo.publishableKey)
    await get('/v1/team-members')
    await get('/v1/integrations')
    await get('/v1/user')
    await get('/v1/call-logs?status=in_progress')
    expect(violations).toEqual([])
  })
})

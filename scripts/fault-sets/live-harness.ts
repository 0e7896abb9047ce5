/**
 * What the liveness scripts of the held-out fault sets share (`held-out-6-live.ts`, `held-out-7-live.ts`): an engine
 * on a frozen clock reached as a client over HTTP would reach it (`session`), helpers the scenarios read answers
 * with and steps several of them take, the ordinary traffic no fault should change (`quiet`), and the run that shows each fault live or not
 * (`showLive`).
 */
import { createClock } from '../../mocks/engine/clock.ts'
import type { EngineResponse } from '../../mocks/engine/types.ts'
import { createMockPlatform } from '../../mocks/platform.ts'
import { type Fault, faultyHandler } from '../../test/reliability/support/faulty-handler.ts'

export const T0 = Date.UTC(2026, 2, 10, 12, 0, 0)
export const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString().replace('.000Z', 'Z')
export const HOUR = 3600

// biome-ignore lint/suspicious/noExplicitAny: a demonstration reads the answers loosely
export type Answer = EngineResponse & { body: any }

export interface CallOptions {
  /** The API key to send (default: the session's current key; `''` sends none). */
  key?: string
  headers?: Record<string, string>
  /** A body sent as it is (not JSON-encoded), with the Content-Type given in `headers` or JSON's. */
  raw?: string
}

export interface Api {
  call(method: string, url: string, body?: unknown, options?: CallOptions): Promise<Answer>
  /** A new account (through the control plane); its id. */
  account(input?: Record<string, unknown>): Promise<string>
  /** A new key of `account` (through the control plane); its value, which becomes the session's key. */
  key(account: string, input?: Record<string, unknown>): Promise<string>
  /** A new key's id and value (the session's key does not change). */
  keyRecord(account: string, input?: Record<string, unknown>): Promise<{ id: string; value: string }>
  use(key: string): void
  /** The seeded demo account's secret key. */
  demoKey(): string
  advance(seconds: number): Promise<void>
  /** A new agent named `name`; its id. */
  agent(name: string, extra?: Record<string, unknown>): Promise<string>
  /** A simulated call of `agent` (through the control plane); its call log's id. */
  startCall(account: string, agent: string, extra?: Record<string, unknown>): Promise<string>
}

export const agentBody = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  voice: { provider: 'openai', voice_id: 'alloy' },
  llm: { provider: 'openai', model: 'gpt-4o-mini' },
  ...extra,
})

export async function session(fault: Fault, scenario: (api: Api) => Promise<unknown>): Promise<string> {
  const platform = await createMockPlatform({ clock: createClock({ realNow: () => T0 }) })
  const handler = faultyHandler(platform, fault)
  let current = ''
  const api: Api = {
    async call(method, url, body, options = {}) {
      const key = options.key ?? current
      const headers: Record<string, string> = { ...(key ? { authorization: `Bearer ${key}` } : {}) }
      if (body !== undefined || options.raw !== undefined) headers['content-type'] = 'application/json'
      return (await handler.handle({
        method,
        url,
        headers: { ...headers, ...options.headers },
        body: options.raw ?? (body === undefined ? null : JSON.stringify(body)),
        baseUrl: 'http://live.test/v1',
        clientIp: '127.0.0.1',
      })) as Answer
    },
    async account(input = { plan: 'pro' }) {
      return (await api.call('POST', '/_mock/accounts', input, { key: '' })).body.id
    },
    async keyRecord(account, input = {}) {
      const made = await api.call(
        'POST',
        `/_mock/accounts/${account}/keys`,
        { type: 'secret', name: 'live', ...input },
        { key: '' },
      )
      if (made.status !== 201) throw new Error(`key: ${made.status} ${JSON.stringify(made.body)}`)
      return { id: made.body.id, value: made.body.value }
    },
    async key(account, input = {}) {
      current = (await api.keyRecord(account, input)).value
      return current
    },
    use(key) {
      current = key
    },
    demoKey() {
      const key = platform.demo.secretKey
      if (!key) throw new Error('the demo account has no secret key value')
      return key
    },
    async advance(seconds) {
      await api.call('POST', '/_mock/clock/advance', { seconds }, { key: '' })
    },
    async agent(name, extra) {
      const made = await api.call('POST', '/v1/agents', agentBody(name, extra))
      if (made.status !== 201) throw new Error(`agent: ${made.status} ${JSON.stringify(made.body)}`)
      return made.body.id
    },
    async startCall(account, agent, extra = {}) {
      const made = await api.call(
        'POST',
        `/_mock/accounts/${account}/calls`,
        { agent_id: agent, ...extra },
        { key: '' },
      )
      if (made.status !== 201) throw new Error(`call: ${made.status} ${JSON.stringify(made.body)}`)
      return made.body.id
    },
  }
  try {
    return JSON.stringify(await scenario(api))
  } finally {
    await (platform as { close?: () => Promise<void> }).close?.()
  }
}

export const errorCode = (answer: Answer) => answer.body?.error?.code ?? null
export const names = (answer: Answer) => (answer.body?.data ?? []).map((item: { name?: string }) => item.name)
/** IDs of a list answer as the labels the scenario gave them (IDs are random). */
export const labelled = (answer: Answer, labels: Record<string, string>) =>
  (answer.body?.data ?? []).map((item: { id: string }) => labels[item.id] ?? '?')
export const seconds = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 1000

/** Agents named `names`, one a second apart (so that their order is by `created_at`); their ids. */
export async function agentsApart(api: Api, all: string[]): Promise<string[]> {
  const ids: string[] = []
  for (const name of all) {
    ids.push(await api.agent(name))
    await api.advance(1)
  }
  return ids
}

/**
 * Ordinary traffic, that no fault should change: the first GET of every endpoint (with the seeded demo account
 * and with a new one), a create and a read of what was created. Its answers are compared whole, random IDs aside.
 */
export async function quiet(api: Api): Promise<unknown> {
  const seen: unknown[] = []
  const look = (answer: Answer) =>
    seen.push({
      status: answer.status,
      headers: Object.fromEntries(Object.entries(answer.headers).filter(([name]) => name !== 'request-id')),
      body: answer.body,
    })
  const reads = [
    '/v1/user',
    '/v1/agents',
    '/v1/call-logs',
    '/v1/analytics/calls',
    '/v1/integrations',
    '/v1/integrations/slack',
    '/v1/team-members',
  ]
  api.use(api.demoKey())
  for (const path of reads) look(await api.call('GET', path))
  await api.key(await api.account())
  for (const path of reads) look(await api.call('GET', path))
  const agent = await api.call('POST', '/v1/agents', agentBody('a'))
  look(agent)
  look(await api.call('GET', `/v1/agents/${agent.body.id}`))
  const member = await api.call('POST', '/v1/team-members', { email: 'lee@live.test' })
  look(member)
  look(await api.call('GET', `/v1/team-members/${member.body.id}`))
  return JSON.parse(JSON.stringify(seen).replace(/\b(agt|mem|call|req|key|usr)_[A-Za-z0-9]+/g, '$1_*'))
}

/** A fault of a set: its name, kind and what it makes. */
interface LiveFault {
  name: string
  kind: string
  make: () => Fault
}

/**
 * Runs each fault's scenario against two correct engines and the faulty one, and the ordinary traffic through the
 * fault; prints LIVE or NOT LIVE per fault and a summary, and sets a failing exit code unless all are live.
 */
export async function showLive(
  faults: readonly LiveFault[],
  scenarios: Record<string, (api: Api) => Promise<unknown>>,
): Promise<void> {
  let live = 0
  const problems: string[] = []
  const quietCorrect = await session({}, quiet)
  if (quietCorrect !== (await session({}, quiet))) problems.push('the quiet traffic is not stable')
  for (const fault of faults) {
    const scenario = scenarios[fault.name]
    if (!scenario) {
      problems.push(`${fault.name}: no scenario`)
      console.log(`NO SCENARIO ${fault.name}`)
      continue
    }
    const correct = await session({}, scenario)
    const again = await session({}, scenario)
    const faulty = await session(fault.make(), scenario)
    const stable = correct === again
    const dormant = (await session(fault.make(), quiet)) === quietCorrect
    if (!dormant) problems.push(`${fault.name}: changes ordinary traffic`)
    const isLive = stable && faulty !== correct
    if (isLive) live++
    if (!stable) problems.push(`${fault.name}: the correct engine observed two different things`)
    else if (!isLive) problems.push(`${fault.name}: not live`)
    console.log(
      `${isLive ? 'LIVE    ' : 'NOT LIVE'} ${fault.kind.padEnd(11)} ${fault.name}${dormant ? '' : ' (changes ordinary traffic)'}`,
    )
    console.log(`         correct ${correct}`)
    if (!stable) console.log(`         again   ${again}`)
    console.log(`         faulty  ${faulty}`)
  }
  const kinds = new Map<string, number>()
  for (const fault of faults) kinds.set(fault.kind, (kinds.get(fault.kind) ?? 0) + 1)
  console.log(`\nkinds: ${[...kinds].map(([kind, n]) => `${kind} ${n}`).join(', ')}`)
  console.log(`${live} of ${faults.length} faults live${problems.length ? `; ${problems.join('; ')}` : ''}`)
  if (
    live !== faults.length ||
    faults.length !== 30 ||
    Object.keys(scenarios).length !== faults.length ||
    problems.length > 0
  )
    process.exitCode = 1
}

/** A fresh account (pro unless said otherwise) whose key becomes the session's key; the account's id. */
export async function freshKey(api: Api, input?: Record<string, unknown>): Promise<string> {
  const account = await api.account(input)
  await api.key(account)
  return account
}

/** An answer's status and error code. */
export const status = (answer: Answer) => [answer.status, errorCode(answer)]

/** A call of `agent` that has completed (60 s of talk after 4 s of ringing). */
export async function completedCall(api: Api, account: string, agent: string): Promise<string> {
  const call = await api.startCall(account, agent)
  await api.advance(70)
  return call
}

/** Revokes a key through the control plane (by its ID); the answer. */
export const revoke = async (api: Api, keyId: string) => {
  const revoked = await api.call('POST', `/_mock/keys/${keyId}/revoke`, undefined, { key: '' })
  if (revoked.status !== 200) throw new Error(`revoke: ${revoked.status}`)
  return revoked
}

/** Invites `email` to the session key's team. */
export const invite = (api: Api, email: string, extra: Record<string, unknown> = {}) =>
  api.call('POST', '/v1/team-members', { email, ...extra })

/** A control-plane request (`/_mock` + `path`), sent without a key. */
export const control = (api: Api, method: string, path: string, body?: unknown) =>
  api.call(method, `/_mock${path}`, body, { key: '' })

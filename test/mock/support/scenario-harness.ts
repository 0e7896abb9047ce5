import type { EngineResponse } from '../../../mocks/engine/types.ts'
import { createMockPlatform, type MockPlatformOptions } from '../../../mocks/platform.ts'

/** Limits far out of the way, so that thousands of requests are admitted. */
export const ROOMY = { hourly: 100_000_000, burst: 100_000_000 }

/** A response as tests read it. */
export interface Answer extends Omit<EngineResponse, 'body'> {
  // biome-ignore lint/suspicious/noExplicitAny: tests read bodies of many shapes
  body: any
}

export interface SendOptions {
  body?: unknown
  headers?: Record<string, string>
  /** Another key than the harness's own. */
  key?: string
}

/**
 * A platform (responses checked against the contract) with an enterprise account of roomy limits and a secret
 * key, and helpers that call it in-process: the v1 API with the key, the control plane without.
 */
export async function scenarioHarness(options: MockPlatformOptions = {}) {
  const drift: string[] = []
  const platform = await createMockPlatform({
    checkResponses: true,
    onContractViolation: (message) => drift.push(message),
    ...options,
  })
  const account = await platform.createAccount({ plan: 'enterprise', limits: ROOMY })
  const created = await platform.createKey(account.id, { type: 'secret', name: 'scenario tests' })

  function request(method: string, url: string, options: SendOptions, key?: string): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers }
    if (key) headers.authorization = `Bearer ${key}`
    if (options.body !== undefined) headers['content-type'] = 'application/json'
    return platform.handle({
      method,
      url,
      headers,
      body: options.body === undefined ? null : JSON.stringify(options.body),
    })
  }

  const harness = {
    platform,
    drift,
    accountId: account.id,
    key: created.value,
    keyId: created.key.id,
    /** A v1 request (`path` after `/v1`) with the harness's key, or `options.key`. */
    send: (method: string, path: string, options: SendOptions = {}) =>
      request(method, `/v1${path}`, options, options.key ?? created.value),
    /** A control-plane request (`path` after `/_mock`). */
    control: (method: string, path: string, body?: unknown) => request(method, `/_mock${path}`, { body }),
    /** Adds a scenario; fails the test unless it is created. */
    async addScenario(input: Record<string, unknown>): Promise<{ id: string; [field: string]: unknown }> {
      const response = await harness.control('POST', '/scenarios', input)
      if (response.status !== 201) throw new Error(`createScenario: ${JSON.stringify(response.body)}`)
      return response.body as { id: string }
    },
    /** The active scenarios, newest first. */
    async scenarios(): Promise<{ id: string; uses: number; remaining: number | null }[]> {
      return ((await harness.control('GET', '/scenarios')).body as { data: [] }).data
    },
    /** A new key of the harness's account (or of a new account with `otherAccount`). */
    async anotherKey(otherAccount = false) {
      const owner = otherAccount
        ? (await platform.createAccount({ plan: 'enterprise', limits: ROOMY })).id
        : account.id
      const key = await platform.createKey(owner, { type: 'secret', name: 'another' })
      return { key: key.value, keyId: key.key.id, accountId: owner }
    },
  }
  return harness
}

export type ScenarioHarness = Awaited<ReturnType<typeof scenarioHarness>>

/** A valid-looking body for an operation that takes one: scenarios answer before the body is judged. */
export const AGENT_BODY = {
  name: 'Scenario test agent',
  voice: { provider: 'elevenlabs', voice_id: 'rachel' },
  llm: { provider: 'openai', model: 'gpt-4o' },
}

/** An account as the mock's control plane shows it. */
export interface MockAccount {
  id: string
  plan: 'free' | 'pro' | 'enterprise'
  limits: { hourly: number; burst: number }
  custom_limits: boolean
  created_at: string
}

/** A key record; `value` only in the answer to its creation. */
export interface MockKey {
  id: string
  account_id: string
  type: 'secret' | 'publishable'
  permissions: string[]
  created_at?: string
  /** The last time the key authenticated a request (never moved by a request it failed to authenticate). */
  last_used_at?: string | null
  revoked_at?: string | null
  value?: string
}

export interface MockKeyInput {
  type: 'secret' | 'publishable'
  name: string
  permissions?: string[]
  restrictions?: { allowed_ips?: string[]; allowed_origins?: string[]; expires_at?: string | null }
}

import type { Transport } from '../http/transport.ts'

export interface MockControlOptions {
  /** The control plane's URL, e.g. `http://127.0.0.1:4010/_mock`. */
  root: string
  adminToken?: string
  transport: Transport
}

/** The control plane answered something other than the documented success. */
export class MockControlError extends Error {}

/**
 * A client for the mock's control plane (`openapi/mock-control.yaml`): the simulated dashboard the suite
 * uses to create accounts of each plan, keys of each kind, revocations and clock moves.
 */
export function createMockControl(options: MockControlOptions) {
  const root = options.root.replace(/\/+$/, '')

  function send(method: string, path: string, body?: unknown) {
    const headers: Record<string, string> = {}
    if (options.adminToken) headers.authorization = `Bearer ${options.adminToken}`
    if (body !== undefined) headers['content-type'] = 'application/json'
    return options.transport({
      method,
      url: root + path,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  }

  /** Sends a request to the control plane and returns its status and JSON body (undefined when not JSON). */
  async function answer(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }> {
    const response = await send(method, path, body)
    try {
      return { status: response.status, body: JSON.parse(response.text) }
    } catch {
      return { status: response.status, body: undefined }
    }
  }

  async function call<T>(method: string, path: string, body?: unknown, expected = 200): Promise<T> {
    const response = await send(method, path, body)
    const text = response.text
    if (response.status !== expected)
      throw new MockControlError(
        `control plane ${method} /_mock${path} answered ${response.status} (expected ${expected}): ${text.slice(0, 300)}`,
      )
    return JSON.parse(text) as T
  }

  return {
    root,
    /** Sends a request to the control plane and returns its status and error code, whatever they are. */
    async probe(method: string, path: string, body?: unknown): Promise<{ status: number; code?: string }> {
      const { status, body: json } = await answer(method, path, body)
      const code = (json as { error?: { code?: unknown } } | undefined)?.error?.code
      return { status, code: typeof code === 'string' ? code : undefined }
    },
    createAccount: (input: {
      plan: string
      name?: string
      email?: string
      limits?: { hourly: number; burst: number } | null
    }) => call<MockAccount>('POST', '/accounts', input, 201),
    listAccounts: async () => (await call<{ data: MockAccount[] }>('GET', '/accounts')).data,
    getAccount: (id: string) => call<MockAccount>('GET', `/accounts/${id}`),
    updateAccount: (
      id: string,
      patch: { plan?: string; limits?: { hourly: number; burst: number } | null },
    ) => call<MockAccount>('PATCH', `/accounts/${id}`, patch),
    createKey: (accountId: string, input: MockKeyInput) =>
      call<MockKey & { value: string }>('POST', `/accounts/${accountId}/keys`, input, 201),
    revokeKey: (keyId: string) => call<MockKey>('POST', `/keys/${keyId}/revoke`),
    listKeys: async (accountId: string) =>
      (await call<{ data: MockKey[] }>('GET', `/accounts/${accountId}/keys`)).data,
    /** Deletes an account with its keys and data (teardown of the accounts a run created). */
    deleteAccount: (id: string) => call<{ id: string; deleted: true }>('DELETE', `/accounts/${id}`),
    clock: () => call<{ now: string; offset_seconds: number }>('GET', '/clock'),
    advanceClock: (seconds: number) =>
      call<{ now: string; offset_seconds: number }>('POST', '/clock/advance', { seconds }),
    /** Removes every scenario (a mock without scenarios answers 404: nothing to remove). */
    async clearScenarios(): Promise<number> {
      try {
        return (await call<{ deleted: number }>('DELETE', '/scenarios')).deleted
      } catch (error) {
        if (error instanceof MockControlError && / answered 404 /.test(error.message)) return 0
        throw error
      }
    },
    /** Places a simulated call (docs/decisions/013-calls-and-webhooks.md): its `queued` call log. */
    placeCall: (accountId: string, input: Record<string, unknown>) =>
      call<Record<string, unknown>>('POST', `/accounts/${accountId}/calls`, input, 201),
    /** An invited team member accepts the invitation (`joinTeamMember`): the member, `active`. */
    joinMember: (accountId: string, memberId: string) =>
      call<Record<string, unknown>>('POST', `/accounts/${accountId}/team-members/${memberId}/join`),
    /** The mock's whole state as a capsule, as its JSON text (`GET /_mock/capsule`). */
    async capsuleText(): Promise<string> {
      const headers: Record<string, string> = {}
      if (options.adminToken) headers.authorization = `Bearer ${options.adminToken}`
      const response = await options.transport({ method: 'GET', url: `${root}/capsule`, headers })
      if (response.status !== 200)
        throw new MockControlError(`control plane GET /_mock/capsule answered ${response.status}`)
      return response.text
    },
    answer,
    /** The request journal (`listJournal`), newest first. */
    journal: (query: { account_id?: string; status?: string; limit?: number }) => {
      const search = new URLSearchParams(
        Object.entries(query).flatMap(([name, value]) =>
          value === undefined ? [] : [[name, String(value)]],
        ),
      )
      return call<{ data: Record<string, unknown>[]; has_more: boolean }>('GET', `/journal?${search}`)
    },
    rateLimit: (accountId: string) =>
      call<{
        windows: { policy: string; limit: number; used: number; remaining: number; reset_seconds: number }[]
      }>('GET', `/accounts/${accountId}/rate-limit`),
  }
}

export type MockControl = ReturnType<typeof createMockControl>

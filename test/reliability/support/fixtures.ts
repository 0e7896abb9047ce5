import { createMemoryStore } from '../../../mocks/engine/state/store.ts'
import type { EngineRequest, EngineResponse } from '../../../mocks/engine/types.ts'
import { createMockPlatform, type MockPlatform } from '../../../mocks/platform.ts'

/** Key values of every kind the fuzzers authenticate with, by role. */
export interface FixtureKeys {
  /** The demo account's secret key (all scopes); its account has limits too high to reach. */
  full: string
  readOnly: string
  publishable: string
  ipRestricted: string
  originRestricted: string
  expiring: string
  revoked: string
  /** A key of a free-plan account (10 requests a minute). */
  free: string
}

/** A platform whose reset state holds the fixture keys, and the ids a fuzzer may address. */
export interface Fixtures {
  platform: MockPlatform
  keys: FixtureKeys
  /** Every key value above (none may ever appear in a response). */
  secrets: string[]
  /** Ids of seeded objects (agents, call logs, members, integrations, accounts, keys). */
  ids: string[]
  /** Back to the fixture state (the control plane's reset). */
  reset(): Promise<void>
  handle(request: EngineRequest): Promise<EngineResponse>
}

async function list(platform: MockPlatform, key: string, path: string): Promise<string[]> {
  const response = await platform.handle({
    method: 'GET',
    url: path,
    headers: { authorization: `Bearer ${key}` },
    body: null,
  })
  const body = response.body as { data?: { id: string }[] }
  return (body.data ?? []).map((item) => item.id)
}

/**
 * Seeds a platform, adds keys of every kind to the demo account (made practically unlimited, so the
 * fuzzers are not stopped by 429s) and a free-plan account, and starts a second platform from that
 * snapshot, so that `/_mock/reset` returns to it.
 */
export async function createFixtures(
  options: { onContractViolation?: (message: string) => void } = {},
): Promise<Fixtures> {
  const base = await createMockPlatform()
  const demo = base.demo.account.id
  base.accounts.update(demo, { limits: { hourly: 100_000_000, burst: 100_000_000 } })
  const make = async (input: Parameters<MockPlatform['createKey']>[1], account = demo) =>
    (await base.createKey(account, input)).value
  const free = await base.createAccount({ plan: 'free' })
  const revoked = await base.createKey(demo, { type: 'secret', name: 'revoked' })
  base.keys.revoke(revoked.key.id)
  const keys: FixtureKeys = {
    full: base.demo.secretKey ?? '',
    readOnly: await make({ type: 'secret', name: 'read only', permissions: ['read'] }),
    publishable: base.demo.publishableKey ?? '',
    ipRestricted: await make({ type: 'secret', name: 'ip', restrictions: { allowed_ips: ['10.0.0.0/8'] } }),
    originRestricted: await make({
      type: 'secret',
      name: 'origin',
      restrictions: { allowed_origins: ['https://app.example.com'] },
    }),
    expiring: await make({
      type: 'secret',
      name: 'expiring',
      restrictions: { expires_at: new Date(base.clock.now() + 3_600_000).toISOString() },
    }),
    revoked: revoked.value,
    free: await make({ type: 'secret', name: 'free' }, free.id),
  }
  const ids = [
    ...(await list(base, keys.full, '/v1/agents?limit=100')).slice(0, 20),
    ...(await list(base, keys.full, '/v1/call-logs?limit=20')),
    ...(await list(base, keys.full, '/v1/team-members?limit=100')),
    ...(await list(base, keys.full, '/v1/integrations')),
    demo,
    free.id,
    revoked.key.id,
    base.demo.secretKeyId,
  ]
  const platform = await createMockPlatform({
    store: createMemoryStore(base.snapshot()),
    checkResponses: true,
    onContractViolation: options.onContractViolation,
  })
  const handle = (request: EngineRequest) => platform.handle(request)
  return {
    platform,
    keys,
    secrets: Object.values(keys),
    ids,
    handle,
    async reset() {
      const response = await handle({ method: 'POST', url: '/_mock/reset', headers: {}, body: null })
      if (response.status !== 200) throw new Error(`reset failed: ${response.status}`)
    },
  }
}

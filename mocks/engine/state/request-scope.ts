import type { AccountStore } from '../accounts.ts'
import { authenticate, parseAuthorization } from '../auth.ts'
import type { Clock } from '../clock.ts'
import type { KeyStore } from '../keys/key-store.ts'
import { sha256Hex } from '../secrets.ts'
import type { EngineRequest } from '../types.ts'
import type { StateStore, StepScope } from './store.ts'

const NO_QUERY = new URLSearchParams()
/** The shape of a key value (docs/decisions/003-api-keys.md): worth asking another process about. */
const KEY_SHAPED = /^[sp]k-svc-[0-9A-Za-z]{32,}$/

/** The path of a request's URL as the engine routes it (dot segments resolved), or undefined if malformed. */
function pathOf(url: string): string | undefined {
  try {
    return new URL(url, 'http://mock.invalid').pathname
  } catch {
    return undefined
  }
}

/**
 * What a request reads, for a shared store (`StepScope`), as the v1 pipeline will find it: a v1 request
 * authenticated by a valid key reads its account (and is counted in its windows); one with a revoked or
 * expired key reads its account only to refuse it; any other v1 request reads nothing of an account. Control
 * plane requests may read anything: no scope.
 */
export function requestScope(deps: { keys: KeyStore; accounts: AccountStore; clock: Clock }) {
  const { keys, accounts, clock } = deps
  return (request: EngineRequest): StepScope | undefined => {
    const path = pathOf(request.url)
    if (path === undefined) return {}
    if (path !== '/v1' && !path.startsWith('/v1/')) return undefined
    if (request.method.toUpperCase() === 'OPTIONS') return {}
    const auth = authenticate(request.headers.authorization, NO_QUERY, { keys, clock })
    if (!auth.ok) {
      if (auth.key) return { account: auth.key.record.account_id }
      const token = parseAuthorization(request.headers.authorization, NO_QUERY)
      return typeof token === 'string' && KEY_SHAPED.test(token) ? { unknownKey: sha256Hex(token) } : {}
    }
    const account = accounts.get(auth.key.record.account_id)
    if (!account) return { account: auth.key.record.account_id }
    return { account: account.id, count: { windows: accounts.windows(account), nowMs: clock.now() } }
  }
}

/** The scope of each request for a store that counts requests itself (a shared store); none for the others. */
export function scopeFor(store: StateStore, deps: Parameters<typeof requestScope>[0]) {
  return store.counted ? requestScope(deps) : undefined
}

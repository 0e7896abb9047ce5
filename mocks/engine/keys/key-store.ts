import { type Cidr, cidrContains, parseCidr, parseIp } from '../cidr.ts'
import { type Clock, toTimestamp } from '../clock.ts'
import { newId, randomBase62 } from '../random.ts'
import { constantTimeEqual, redactKey, sha256Hex } from '../secrets.ts'
import type { EngineState } from '../state/state.ts'
import { checkKeyInput } from './key-input.ts'
import { KeyTable } from './key-table.ts'
import type { ApiKey, KeyInput, KeyType, StoredKey } from './key-types.ts'

export type KeyCreateResult =
  | { ok: true; key: ApiKey; value: string }
  | { ok: false; param: string; code: string; message: string }

const PREFIX: Record<KeyType, string> = { secret: 'sk-svc-', publishable: 'pk-svc-' }
const ROTATION_DAYS = 90
/** Random characters after the prefix (docs/decisions/003-api-keys.md: at least 32 base62). */
export const KEY_RANDOM_LENGTH = 40

/** Generates a key; the value is returned here once and never stored, only its SHA-256. */
export function createKey(
  table: KeyTable,
  clock: Clock,
  accountId: string,
  input: KeyInput,
): KeyCreateResult {
  const checked = checkKeyInput(input, clock)
  if (!checked.ok) return checked
  const value = PREFIX[input.type] + randomBase62(KEY_RANDOM_LENGTH)
  const now = clock.now()
  const record: ApiKey = {
    id: newId('key'),
    object: 'api_key',
    account_id: accountId,
    type: input.type,
    name: input.name,
    permissions: checked.scopes,
    restrictions: {
      allowed_ips: input.restrictions?.allowed_ips ?? [],
      allowed_origins: input.restrictions?.allowed_origins ?? [],
      expires_at: checked.expiresAt,
    },
    redacted_value: redactKey(value),
    status: 'active',
    created_at: toTimestamp(now),
    last_used_at: null,
    revoked_at: null,
    rotation_due_at: toTimestamp(now + ROTATION_DAYS * 86_400_000),
  }
  table.put({ record, hash: sha256Hex(value) })
  return { ok: true, key: record, value }
}

/**
 * The key whose value hashes to the token's hash, the hashes compared in constant time. Hashes synchronously,
 * on every request: no key value is kept, not even in a cache in memory (docs/decisions/003-api-keys.md).
 */
export function findKey(table: KeyTable, token: string): StoredKey | undefined {
  const hash = sha256Hex(token)
  const stored = table.byDigest(hash)
  return stored && constantTimeEqual(stored.hash, hash) ? stored : undefined
}

/** Revokes a key; revoking a revoked key changes nothing. */
export function revokeKey(table: KeyTable, clock: Clock, id: string): ApiKey | undefined {
  const stored = table.get(id)
  if (!stored) return undefined
  if (stored.record.status !== 'active') return stored.record
  const revoked = { ...stored.record, status: 'revoked' as const, revoked_at: clock.iso() }
  return table.put({ record: revoked, hash: stored.hash }).record
}

/** Notes that a key was used now (whole seconds): a soft change, made at most once a second per key. */
export function touchKey(table: KeyTable, stored: StoredKey, nowMs: number): StoredKey {
  const at = toTimestamp(nowMs)
  if (stored.record.last_used_at === at) return stored
  return table.put({ record: { ...stored.record, last_used_at: at }, hash: stored.hash }, true)
}

/** Whether a client address passes the key's `allowed_ips` (an empty list allows all). */
export function ipAllowed(table: KeyTable, key: ApiKey, clientIp: string | undefined): boolean {
  if (key.restrictions.allowed_ips.length === 0) return true
  const ip = clientIp ? parseIp(clientIp) : null
  if (!ip) return false
  let ranges = table.ranges.get(key.id)
  if (!ranges) {
    ranges = key.restrictions.allowed_ips.map(parseCidr).filter((c): c is Cidr => c !== null)
    table.ranges.set(key.id, ranges)
  }
  return ranges.some((range) => cidrContains(range, ip))
}

/** The keys of an account, as the dashboard lists them. */
export function keysOf(table: KeyTable, accountId: string): ApiKey[] {
  return [...table.values()].map((s) => s.record).filter((k) => k.account_id === accountId)
}

/**
 * API keys (docs/decisions/003-api-keys.md): generation, hashed storage, constant-time lookup, revocation and
 * restrictions, over one table of the engine's state.
 */
export function createKeyStore(clock: Clock, state: EngineState) {
  const table = new KeyTable(state)
  return {
    create: (accountId: string, input: KeyInput) => createKey(table, clock, accountId, input),
    find: (token: string) => findKey(table, token),
    get: (id: string) => table.get(id)?.record,
    list: (accountId: string) => keysOf(table, accountId),
    revoke: (id: string) => revokeKey(table, clock, id),
    touch: (stored: StoredKey, nowMs: number) => touchKey(table, stored, nowMs),
    ipAllowed: (key: ApiKey, clientIp: string | undefined) => ipAllowed(table, key, clientIp),
    /** Removes every key of an account: they then fail like unknown keys. */
    removeAccount(accountId: string): void {
      for (const key of keysOf(table, accountId)) table.remove(key.id)
    },
  }
}

export type KeyStore = ReturnType<typeof createKeyStore>

export type { ApiKey, KeyInput, KeyRestrictions, KeyType, StoredKey } from './key-types.ts'

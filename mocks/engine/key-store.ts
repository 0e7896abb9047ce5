import { type Cidr, cidrContains, parseCidr, parseIp } from './cidr.ts'
import { type Clock, toTimestamp } from './clock.ts'
import { expandPermissions, PUBLISHABLE_SCOPES, SCOPES, type Scope } from './permissions.ts'
import { newId, randomBase62 } from './random.ts'
import { constantTimeEqual, redactKey, sha256Hex } from './secrets.ts'
import type { EngineState } from './state/state.ts'
import { parseTimestamp } from './timestamp.ts'

export type KeyType = 'secret' | 'publishable'

export interface KeyRestrictions {
  allowed_ips: string[]
  allowed_origins: string[]
  expires_at: string | null
}

/** The key record of docs/decisions/003-api-keys.md, as the control plane shows it. */
export interface ApiKey {
  id: string
  object: 'api_key'
  account_id: string
  type: KeyType
  name: string
  permissions: Scope[]
  restrictions: KeyRestrictions
  redacted_value: string
  status: 'active' | 'revoked'
  created_at: string
  last_used_at: string | null
  revoked_at: string | null
  rotation_due_at: string
}

/** A stored key: the record and the SHA-256 of its value; the value itself is never kept. */
export interface StoredKey {
  record: ApiKey
  hash: string
}

export interface KeyInput {
  type: KeyType
  name: string
  permissions?: string[]
  restrictions?: Partial<KeyRestrictions>
}

export type KeyCreateResult =
  | { ok: true; key: ApiKey; value: string }
  | { ok: false; param: string; code: string; message: string }

// Stryker disable next-line ObjectLiteral,StringLiteral: the control plane's (the dashboard's) side of keys, outside the v1 contract: key values, records and input errors are never shown through /v1 (test/mock/control-plane.test.ts)
const PREFIX: Record<KeyType, string> = { secret: 'sk-svc-', publishable: 'pk-svc-' }
const ROTATION_DAYS = 90
/** Random characters after the prefix (docs/decisions/003-api-keys.md: at least 32 base62). */
export const KEY_RANDOM_LENGTH = 40

/** The state table of the keys (records with their hashes), by key id. */
// Stryker disable next-line StringLiteral: state-table bookkeeping, read back only when a store restores or shares the state (test/stores/*.test.ts, test/calls/persistent-calls.test.ts); one running mock never reads it back
export const KEYS_TABLE = 'keys'

/**
 * API keys: generation, hashed storage, constant-time lookup, revocation and restrictions; a table of the
 * engine's state. A stored key is replaced, never changed in place.
 */
export function createKeyStore(clock: Clock, state: EngineState) {
  const byId = new Map<string, StoredKey>()
  const byHash = new Map<string, StoredKey>()
  const cidrCache = new Map<string, Cidr[]>()

  function set(stored: StoredKey): void {
    const previous = byId.get(stored.record.id)
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a key's digest never changes (a stored key is replaced with the same hash)
    if (previous && previous.hash !== stored.hash) byHash.delete(previous.hash)
    byId.set(stored.record.id, stored)
    byHash.set(stored.hash, stored)
    // Stryker disable next-line ConditionalExpression,EqualityOperator: restrictions are set at creation and never change, so the cached ranges stay right
    if (previous && previous.record.restrictions !== stored.record.restrictions)
      cidrCache.delete(stored.record.id)
  }

  // Stryker disable next-line BlockStatement: used only when a store's change or the control plane removes a key (state-table bookkeeping and account deletion, see below)
  function unset(id: string): void {
    const stored = byId.get(id)
    // Stryker disable next-line BooleanLiteral,ConditionalExpression: as above
    if (!stored) return
    byId.delete(id)
    byHash.delete(stored.hash)
    cidrCache.delete(id)
  }

  /** Replaces a stored key and records the change (`soft`: bookkeeping such as the last-used time). */
  // Stryker disable next-line BooleanLiteral: state-table bookkeeping, read back only when a store restores or shares the state (test/stores/*.test.ts, test/calls/persistent-calls.test.ts); one running mock never reads it back
  function put(stored: StoredKey, soft = false): StoredKey {
    // Stryker disable next-line LogicalOperator: state-table bookkeeping, read back only when a store restores or shares the state (test/stores/*.test.ts, test/calls/persistent-calls.test.ts); one running mock never reads it back
    const before = byId.get(stored.record.id) ?? null
    set(stored)
    state.record(KEYS_TABLE, stored.record.id, stored, before, soft)
    return stored
  }

  // Stryker disable all: state-table bookkeeping, read back only when a store restores or shares the state (test/stores/*.test.ts, test/calls/persistent-calls.test.ts); one running mock never reads it back
  state.register(KEYS_TABLE, {
    apply(id, value) {
      if (value === null) unset(id)
      else set(value as StoredKey)
    },
    entries: () => [...byId.entries()],
    clear() {
      byId.clear()
      byHash.clear()
      cidrCache.clear()
    },
  })
  // Stryker restore all

  function validate(
    input: KeyInput,
  ): KeyCreateResult | { ok: true; scopes: Scope[]; expiresAt: string | null } {
    // Stryker disable next-line ArrowFunction,ObjectLiteral: an input error of the control plane's key creation (the dashboard's role), outside the v1 contract (test/mock/control-plane.test.ts); valid input is exercised by every key the suite provisions
    const fail = (param: string, code: string, message: string) => ({
      ok: false as const,
      param,
      code,
      message,
    })
    const requested = input.permissions
    let scopes: Scope[]
    if (requested === undefined) scopes = input.type === 'secret' ? [...SCOPES] : [...PUBLISHABLE_SCOPES]
    else {
      const expanded = expandPermissions(requested)
      // Stryker disable next-line ConditionalExpression,StringLiteral: an input error of the control plane's key creation (the dashboard's role), outside the v1 contract (test/mock/control-plane.test.ts); valid input is exercised by every key the suite provisions
      if (!expanded.ok) return fail('permissions', 'enum', `Unknown permission '${expanded.unknown}'.`)
      scopes = expanded.scopes
    }
    // Stryker disable next-line ConditionalExpression,MethodExpression,StringLiteral,ArrowFunction: an input error of the control plane's key creation (the dashboard's role), outside the v1 contract (test/mock/control-plane.test.ts); valid input is exercised by every key the suite provisions
    if (input.type === 'publishable' && scopes.some((scope) => !PUBLISHABLE_SCOPES.includes(scope)))
      // Stryker disable next-line StringLiteral: as above
      return fail('permissions', 'invalid', 'A publishable key may hold only agents:read.')
    for (const [i, ip] of (input.restrictions?.allowed_ips ?? []).entries()) {
      // Stryker disable next-line ConditionalExpression: an input error of the control plane's key creation (the dashboard's role), outside the v1 contract (test/mock/control-plane.test.ts); valid input is exercised by every key the suite provisions
      if (!parseCidr(ip))
        // Stryker disable next-line StringLiteral: as above
        return fail(`restrictions.allowed_ips.${i}`, 'format', `'${ip}' is not an IP address or CIDR.`)
    }
    for (const [i, origin] of (input.restrictions?.allowed_origins ?? []).entries()) {
      // Stryker disable next-line ConditionalExpression,Regex: an input error of the control plane's key creation (the dashboard's role), outside the v1 contract (test/mock/control-plane.test.ts); valid input is exercised by every key the suite provisions
      if (!/^https?:\/\/[^/\s]+$/.test(origin))
        // Stryker disable StringLiteral: as above
        return fail(
          `restrictions.allowed_origins.${i}`,
          'format',
          `'${origin}' is not an origin like https://app.example.com.`,
        )
      // Stryker restore StringLiteral
    }
    // Any RFC 3339 offset is accepted and kept in the contract's form (UTC, Z, whole seconds).
    const expires = input.restrictions?.expires_at
    if (typeof expires !== 'string') return { ok: true, scopes, expiresAt: null }
    const parsed = parseTimestamp(expires)
    // Stryker disable next-line ConditionalExpression,StringLiteral: an input error of the control plane's key creation (the dashboard's role), outside the v1 contract (test/mock/control-plane.test.ts); valid input is exercised by every key the suite provisions
    if (!parsed.ok) return fail('restrictions.expires_at', 'format', parsed.message)
    // Stryker disable next-line ConditionalExpression,EqualityOperator: as above
    if (parsed.ms <= clock.now())
      // Stryker disable StringLiteral: as above
      return fail(
        'restrictions.expires_at',
        'invalid',
        `restrictions.expires_at must be in the future; the mock clock reads ${clock.iso()}.`,
      )
    // Stryker restore StringLiteral
    return { ok: true, scopes, expiresAt: parsed.iso }
  }

  return {
    /** Generates a key; the value is returned here once and never stored. */
    create(accountId: string, input: KeyInput): KeyCreateResult {
      const checked = validate(input)
      // Stryker disable next-line LogicalOperator,ConditionalExpression: the control plane's (the dashboard's) side of keys, outside the v1 contract: key values, records and input errors are never shown through /v1 (test/mock/control-plane.test.ts)
      if (!checked.ok || !('scopes' in checked)) return checked as KeyCreateResult
      const value = PREFIX[input.type] + randomBase62(KEY_RANDOM_LENGTH)
      const hash = sha256Hex(value)
      const now = clock.now()
      const record: ApiKey = {
        // Stryker disable next-line StringLiteral: the control plane's (the dashboard's) side of keys, outside the v1 contract: key values, records and input errors are never shown through /v1 (test/mock/control-plane.test.ts)
        id: newId('key'),
        // Stryker disable next-line StringLiteral: the control plane's (the dashboard's) side of keys, outside the v1 contract: key values, records and input errors are never shown through /v1 (test/mock/control-plane.test.ts)
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
        // Stryker disable next-line ArithmeticOperator: the control plane's (the dashboard's) side of keys, outside the v1 contract: key values, records and input errors are never shown through /v1 (test/mock/control-plane.test.ts)
        rotation_due_at: toTimestamp(now + ROTATION_DAYS * 86_400_000),
      }
      put({ record, hash })
      return { ok: true, key: record, value }
    },

    /**
     * Finds the key whose value hashes to the token's hash, comparing hashes in constant time.
     * Hashes synchronously: no worker-thread round trip on every request.
     */
    find(token: string): StoredKey | undefined {
      const hash = sha256Hex(token)
      const stored = byHash.get(hash)
      // Stryker disable next-line ConditionalExpression: `stored` is undefined exactly when the digest is unknown
      return stored && constantTimeEqual(stored.hash, hash) ? stored : undefined
    },

    // Stryker disable ArrowFunction,OptionalChaining,MethodExpression,ArrayDeclaration,ConditionalExpression,EqualityOperator: the control plane's reads of keys, outside the v1 contract
    get: (id: string) => byId.get(id)?.record,
    list: (accountId: string) =>
      [...byId.values()].map((s) => s.record).filter((k) => k.account_id === accountId),
    // Stryker restore all

    /** Revokes a key; revoking a revoked key changes nothing. */
    revoke(id: string): ApiKey | undefined {
      const stored = byId.get(id)
      // Stryker disable next-line ConditionalExpression: revoking an unknown key is the control plane's 404
      if (!stored) return undefined
      // Stryker disable next-line ConditionalExpression: revoking a revoked key again (idempotent, docs/decisions/003-api-keys.md) is seen in the control plane's record only; the `true` variant (nothing revoked) is killed by the revoked-key check
      if (stored.record.status !== 'active') return stored.record
      const revoked = { ...stored.record, status: 'revoked' as const, revoked_at: clock.iso() }
      return put({ record: revoked, hash: stored.hash }).record
    },

    /**
     * Notes that a key was used now (whole seconds): a soft change, made at most once a second per key.
     * Returns the key as it now is.
     */
    touch(stored: StoredKey, nowMs: number): StoredKey {
      const at = toTimestamp(nowMs)
      // Stryker disable next-line ConditionalExpression,EqualityOperator: last_used_at is shown by the control plane only, outside the v1 contract
      if (stored.record.last_used_at === at) return stored
      // Stryker disable next-line BooleanLiteral: state-table bookkeeping, read back only when a store restores or shares the state (test/stores/*.test.ts, test/calls/persistent-calls.test.ts); one running mock never reads it back
      return put({ record: { ...stored.record, last_used_at: at }, hash: stored.hash }, true)
    },

    /** Whether a client address passes the key's `allowed_ips` (an empty list allows all). */
    ipAllowed(key: ApiKey, clientIp: string | undefined): boolean {
      if (key.restrictions.allowed_ips.length === 0) return true
      const ip = clientIp ? parseIp(clientIp) : null
      // Stryker disable next-line ConditionalExpression,BooleanLiteral: every adapter gives the client's address (over HTTP the socket's, in-process 127.0.0.1)
      if (!ip) return false
      let cidrs = cidrCache.get(key.id)
      // Stryker disable next-line ConditionalExpression: a cache of the parsed ranges (parsing again gives the same)
      if (!cidrs) {
        // Stryker disable next-line MethodExpression,ConditionalExpression: every stored range parses (validated at creation)
        cidrs = key.restrictions.allowed_ips.map(parseCidr).filter((c): c is Cidr => c !== null)
        cidrCache.set(key.id, cidrs)
      }
      return cidrs.some((cidr) => cidrContains(cidr, ip))
    },

    /** Removes every key of an account: they then fail like unknown keys. */
    // Stryker disable all: account deletion is the control plane's, outside the v1 contract (test/mock/control-plane.test.ts)
    removeAccount(accountId: string): void {
      for (const stored of [...byId.values()]) {
        if (stored.record.account_id !== accountId) continue
        unset(stored.record.id)
        state.record(KEYS_TABLE, stored.record.id, null, stored)
      }
    },
    // Stryker restore all
  }
}

export type KeyStore = ReturnType<typeof createKeyStore>

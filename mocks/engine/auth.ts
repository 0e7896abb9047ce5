import { ApiError, errors } from './api-error.ts'
import type { Clock } from './clock.ts'
import type { KeyStore, StoredKey } from './keys/key-store.ts'
import { redactKey } from './secrets.ts'
import { parseTimestamp } from './timestamp.ts'

/** A failure carries the key when it was recognised (revoked, expired), so the journal can name it. */
export type AuthResult = { ok: true; key: StoredKey } | { ok: false; error: ApiError; key?: StoredKey }

const QUERY_KEY_PARAMS = ['api_key', 'apikey', 'key', 'access_token', 'token']

const BEARER = 'Bearer '

/** `Bearer `, then one or more visible ASCII characters (no space, no control character), and nothing else. */
function isPlainBearer(header: string): boolean {
  if (header.length <= BEARER.length || !header.startsWith(BEARER)) return false
  for (let i = BEARER.length; i < header.length; i++) {
    const code = header.charCodeAt(i)
    if (code < 0x21 || code > 0x7e) return false
  }
  return true
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or an error. */
export function parseAuthorization(header: string | undefined, query: URLSearchParams): string | ApiError {
  // The usual form, `Bearer ` and a token of visible ASCII: the token, as the general reading below gives it.
  if (header !== undefined && isPlainBearer(header)) return header.slice(BEARER.length)
  if (header === undefined || header.trim() === '') {
    if (QUERY_KEY_PARAMS.some((name) => query.has(name)))
      return errors.unauthenticated(
        'API keys are not accepted in the query string. Send the key in the Authorization header: Authorization: Bearer <API_KEY>.',
        'none',
      )
    return errors.unauthenticated(
      'No API key provided. Send it in the Authorization header: Authorization: Bearer <API_KEY>.',
      'none',
    )
  }
  const match = /^(\S+)(?:\s+(.*))?$/.exec(header.trim())
  const scheme = match?.[1] ?? ''
  if (scheme.toLowerCase() !== 'bearer')
    return errors.unauthenticated(
      `The Authorization header must use the Bearer scheme, not '${scheme.slice(0, 16)}': Authorization: Bearer <API_KEY>.`,
    )
  const token = (match?.[2] ?? '').trim()
  if (token === '')
    return errors.unauthenticated(
      'No API key provided: the Bearer token is empty. Use Authorization: Bearer <API_KEY>.',
      'none',
    )
  return token
}

/** A key's redacted form for messages; never more than its prefix and last 4 characters. @messageText */
function describe(token: string): string {
  return token.length >= 24 && /^[a-z]{2}-svc-/.test(token) ? ` (${redactKey(token)})` : ''
}

export interface AuthOptions {
  keys: KeyStore
  clock: Clock
}

/** Authenticates a request: missing, malformed, invalid, revoked and expired keys each say so. */
export function authenticate(
  header: string | undefined,
  query: URLSearchParams,
  { keys, clock }: AuthOptions,
): AuthResult {
  const token = parseAuthorization(header, query)
  if (token instanceof ApiError) return { ok: false, error: token }
  const stored = keys.find(token)
  if (!stored)
    return { ok: false, error: errors.unauthenticated(`Invalid API key provided${describe(token)}.`) }
  const { record } = stored
  if (record.status === 'revoked')
    return {
      ok: false,
      key: stored,
      error: errors.unauthenticated(
        `This API key${describe(token)} has been revoked. Create a new key in the dashboard.`,
      ),
    }
  const expiresAt = record.restrictions.expires_at
  // A stored value that names no instant (an older state file) counts as expired: fail closed.
  const expiry = expiresAt === null ? undefined : parseTimestamp(expiresAt)
  if (expiry && (!expiry.ok || expiry.ms <= clock.now()))
    return {
      ok: false,
      key: stored,
      error: errors.unauthenticated(`This API key${describe(token)} expired at ${expiresAt}.`),
    }
  return { ok: true, key: stored }
}

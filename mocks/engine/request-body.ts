import { errors } from './api-error.ts'

/** Bodies over 1 MiB are refused with 413 (docs/decisions/007-errors.md). */
export const MAX_BODY_BYTES = 1024 * 1024

/** A capsule (`POST /_mock/capsule`) is a whole mock's state: it may be this large, and no larger. */
export const MAX_CAPSULE_BYTES = 64 * 1024 * 1024

/** The one route whose body is a capsule. */
export const CAPSULE_PATH = '/_mock/capsule'

/** The most bytes a request's body may hold: a capsule's bound for `POST /_mock/capsule`, 1 MiB for the rest. */
export function bodyLimitOf(method: string, url: string): number {
  const path = url.split('?')[0]
  return method.toUpperCase() === 'POST' && path === CAPSULE_PATH ? MAX_CAPSULE_BYTES : MAX_BODY_BYTES
}

const encoder = new TextEncoder()

/** Byte length of a string in UTF-8, counted only when the character count leaves doubt. */
export function exceedsBodyLimit(body: string, limit = MAX_BODY_BYTES): boolean {
  if (body.length > limit) return true
  if (body.length * 3 <= limit) return false
  return encoder.encode(body).length > limit
}

/** Whether a Content-Type names JSON (`application/json`, `application/merge-patch+json`, with parameters). */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? ''
  // Accepting other JSON media types (`application/merge-patch+json`) is the mock's leniency: the spec asks only that
  // application/json be accepted and a body that is not JSON refused.
  return type === 'application/json' || /^application\/[a-z0-9.+-]*\+json$/.test(type)
}

/**
 * Parses a request body for an operation that takes one: 413 when too large, 415 when not JSON,
 * 400 when malformed or missing. Returns `undefined` for an absent optional body.
 */
export function parseJsonBody(
  body: string | null,
  contentType: string | undefined,
  required: boolean,
  limit = MAX_BODY_BYTES,
): unknown {
  const empty = body === null || body.trim() === ''
  if (!empty && exceedsBodyLimit(body, limit)) throw errors.payloadTooLarge(limit)
  if (empty) {
    if (required) throw errors.invalidJson('This request needs a JSON body (Content-Type: application/json).')
    return undefined
  }
  if (!isJsonContentType(contentType)) throw errors.unsupportedMediaType(contentType ?? '')
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : 'malformed JSON'
    throw errors.invalidJson(`The request body is not valid JSON: ${detail}.`)
  }
  if (!isJsonObject(parsed))
    throw errors.invalidJson(`The request body must be a JSON object, not ${describeJson(parsed)}.`)
  return parsed
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** What a JSON value is, in words, for a message. @messageText */
function describeJson(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return `a ${typeof value}`
}

/**
 * A JSON value's text with object keys in sorted order, so that two bodies equal as JSON values
 * (whatever their key order or spacing) give the same text: the idempotency fingerprint.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (isJsonObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
      .join(',')}}`
  return JSON.stringify(value) ?? 'null'
}

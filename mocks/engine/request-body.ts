import { ApiError, errors } from './api-error.ts'

/** Bodies over 1 MiB are refused with 413 (decisions.md section 7). */
export const MAX_BODY_BYTES = 1024 * 1024

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
  faults: ReadonlySet<string>,
): unknown {
  const empty = body === null || body.trim() === ''
  if (!empty && exceedsBodyLimit(body) && !faults.has('oversize-accepted'))
    throw errors.payloadTooLarge(MAX_BODY_BYTES)
  if (empty) {
    if (required) throw errors.invalidJson('This request needs a JSON body (Content-Type: application/json).')
    return undefined
  }
  if (!isJsonContentType(contentType) && !faults.has('non-json-accepted'))
    throw errors.unsupportedMediaType(contentType ?? '')
  try {
    return JSON.parse(body)
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : 'malformed JSON'
    if (faults.has('invalid-json-422'))
      throw new ApiError(422, 'validation_error', 'validation_failed', 'Invalid body', {
        errors: [{ param: '', code: 'invalid', message: detail }],
      })
    throw errors.invalidJson(`The request body is not valid JSON: ${detail}.`)
  }
}

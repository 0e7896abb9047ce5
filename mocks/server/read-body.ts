import type { IncomingMessage } from 'node:http'
import { MAX_BODY_BYTES } from '../engine/request-body.ts'

export type BodyResult =
  | { ok: true; body: string | null; invalidUtf8?: boolean }
  | { ok: false; reason: 'too-large' | 'aborted' }

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/** The body as text; bytes that are not UTF-8 are reported, never silently replaced. */
function decode(bytes: Buffer): BodyResult {
  try {
    return { ok: true, body: strictUtf8.decode(bytes) }
  } catch {
    return { ok: true, body: null, invalidUtf8: true }
  }
}

/** What a request without a body reads as. */
export const NO_BODY: BodyResult = { ok: true, body: null }

/**
 * Whether a request has a body, by its headers (lower-case names): neither Content-Length nor Transfer-Encoding
 * says none (RFC 9112 section 6.3).
 */
export function hasBody(headers: Readonly<Record<string, unknown>>): boolean {
  return headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined
}

/**
 * Reads a request body as UTF-8 (flagging bytes that are not UTF-8), refusing it as soon as it passes the limit (by `Content-Length`
 * before reading anything, or while streaming), so an oversize body is never held whole.
 */
export function readBody(request: IncomingMessage, limit = MAX_BODY_BYTES): Promise<BodyResult> {
  if (!hasBody(request.headers)) return Promise.resolve(NO_BODY)
  const declared = Number(request.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit)
    return Promise.resolve({ ok: false, reason: 'too-large' })
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const finish = (result: BodyResult) => {
      if (done) return
      done = true
      resolve(result)
    }
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        chunks.length = 0
        request.pause()
        finish({ ok: false, reason: 'too-large' })
        return
      }
      chunks.push(chunk)
    })
    request.on('end', () => finish(size === 0 ? NO_BODY : decode(Buffer.concat(chunks))))
    request.on('error', () => finish({ ok: false, reason: 'aborted' }))
    request.on('close', () => finish({ ok: false, reason: 'aborted' }))
  })
}

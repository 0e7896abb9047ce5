import type { IncomingMessage } from 'node:http'
import { MAX_BODY_BYTES } from '../engine/request-body.ts'

export type BodyResult =
  | { ok: true; body: string | null; invalidUtf8?: boolean }
  | { ok: false; reason: 'too-large' | 'too-slow' | 'aborted' }

/**
 * How slowly a body may arrive: after `graceMs` from its headers, at least `minBytesPerSecond` on average
 * (`graceMs + received / minBytesPerSecond` seconds for what has come so far), or it is refused as too slow.
 */
export interface BodyPace {
  graceMs: number
  minBytesPerSecond: number
}

export interface ReadBodyOptions {
  /** Bodies over this many bytes are refused ('too-large'). Default 1 MiB. */
  limit?: number
  /** Refuse a body that arrives more slowly than this ('too-slow'). Default: no bound but the caller's. */
  pace?: BodyPace
  /** Told of each piece of the body as it arrives (the connection cap sees the body moving). */
  onProgress?: () => void
}

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
 * Reads a request body as UTF-8 (flagging bytes that are not UTF-8), refusing it as soon as it passes the limit
 * (by `Content-Length` before reading anything, or while streaming), so an oversize body is never held whole;
 * with a `pace`, refusing it as soon as it falls behind the minimum rate (a client trickling its body in holds
 * a connection for nothing).
 */
export function readBody(request: IncomingMessage, options: ReadBodyOptions = {}): Promise<BodyResult> {
  const limit = options.limit ?? MAX_BODY_BYTES
  if (!hasBody(request.headers)) return Promise.resolve(NO_BODY)
  const declared = Number(request.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit)
    return Promise.resolve({ ok: false, reason: 'too-large' })
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    const startedAt = performance.now()
    let size = 0
    let done = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const finish = (result: BodyResult) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resolve(result)
    }
    const pace = options.pace
    /** When the body falls behind the pace, given what has come so far. */
    const dueAt = (p: BodyPace) => startedAt + p.graceMs + (size * 1000) / p.minBytesPerSecond
    const watchPace = (p: BodyPace) => {
      timer = setTimeout(
        () =>
          // After the I/O already waiting is read (a busy event loop must not count against the client).
          setImmediate(() => {
            if (done) return
            if (performance.now() < dueAt(p)) watchPace(p)
            else {
              chunks.length = 0
              request.pause()
              finish({ ok: false, reason: 'too-slow' })
            }
          }),
        Math.max(0, dueAt(p) - performance.now()),
      )
      timer.unref()
    }
    if (pace) watchPace(pace)
    request.on('data', (chunk: Buffer) => {
      if (done) return
      size += chunk.length
      options.onProgress?.()
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

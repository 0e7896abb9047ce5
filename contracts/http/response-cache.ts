import type { CallInput } from './client.ts'
import type { Exchange } from './exchange.ts'

const SAFE = new Set(['GET', 'HEAD'])

/** Whether a request method cannot change anything on the target (RFC 9110 safe methods the suite sends). */
export const isSafeMethod = (method: string) => SAFE.has(method.toUpperCase())

/**
 * What identifies a request for sharing: the method, the path with its query string exactly as sent, the
 * credentials, every extra header and the body. Two checks that send the same thing get the same answer.
 */
export function requestIdentity(input: CallInput): string {
  const headers = Object.entries(input.headers ?? {})
    .map(([name, value]) => [name.toLowerCase(), value] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return JSON.stringify([
    input.method.toUpperCase(),
    input.path,
    input.authorization ?? (input.key === null ? null : `Bearer ${input.key}`),
    headers,
    input.json === undefined ? (input.body ?? null) : JSON.stringify(input.json),
  ])
}

/**
 * The run's cache of answers to safe requests (GET, HEAD), shared between checks that send the same request.
 * Anything that can change what the target answers empties it: a request with any other method, a change
 * through the mock's control plane (keys, accounts, clock). Answers that depend on the moment are never
 * kept: 429s and 5xx. A check that needs its own answer (a fresh `Request-Id`, a rate-limit count) bypasses it.
 */
export function createResponseCache() {
  const entries = new Map<string, Exchange>()
  let hits = 0
  return {
    /** The stored answer to this request, if any. */
    get(input: CallInput): Exchange | undefined {
      if (!isSafeMethod(input.method)) return undefined
      const found = entries.get(requestIdentity(input))
      if (found) hits++
      return found
    },
    /** Keeps the answer to a safe request; forgets everything after any other request. */
    store(input: CallInput, exchange: Exchange): void {
      if (!isSafeMethod(input.method)) {
        entries.clear()
        return
      }
      const status = exchange.response.status
      if (status === 429 || status >= 500) return
      entries.set(requestIdentity(input), exchange)
    },
    /** Forgets every stored answer (something changed on the target). */
    invalidate(): void {
      entries.clear()
    },
    /** Requests answered from the cache so far. */
    hits: () => hits,
  }
}

export type ResponseCache = ReturnType<typeof createResponseCache>

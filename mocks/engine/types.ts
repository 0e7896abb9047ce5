/** A request as the engine sees it: plain data, whatever the transport. */
export interface EngineRequest {
  method: string
  /** Path and query, e.g. `/v1/agents?limit=5` (an absolute URL is accepted too). */
  url: string
  /** Header names in lower case. */
  headers: Record<string, string | undefined>
  /** The raw body, or null when there is none. */
  body: string | null
  /** The client's address, when the transport knows it (undefined in-process). */
  clientIp?: string
  /**
   * The public base URL of the API as the client called it (`http://127.0.0.1:4010/v1`), for the
   * absolute `Location` of created resources. Derived from `url` when it is absolute.
   */
  baseUrl?: string
  /**
   * The transport refused to read a body over the limit: the engine answers 413 in its place in the
   * order of checks (after authentication, rate limit, route and permission).
   */
  bodyTooLarge?: boolean
  /** The transport received body bytes that are not UTF-8: 400 `invalid_json` where a body is taken. */
  bodyNotUtf8?: boolean
}

/**
 * A response as the engine produces it; `body` is a JSON value, an HTML string, JSON written as UTF-8 bytes
 * already (a `Uint8Array`: a capsule, sent as they are), or undefined.
 */
export interface EngineResponse {
  status: number
  headers: Record<string, string>
  body: unknown
  /** What the adapter does besides answering (a scenario's delay or network error); the engine has no timers. */
  effect?: ResponseEffect
}

/**
 * A scenario's effect on the wire, carried out by each adapter: wait `delayMs` before answering, then answer,
 * or instead drop the connection (`reset`) or leave the request unanswered until the client gives up
 * (`timeout`). An adapter that cannot do a network error sends the response (a 503 naming the scenario).
 */
export interface ResponseEffect {
  delayMs?: number
  network?: 'reset' | 'timeout'
}

export type { OperationResult } from './operation-result.ts'

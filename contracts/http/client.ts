import type { Exchange, ReceivedResponse, SentRequest } from './exchange.ts'
import type { Transport } from './transport.ts'

/** What a check asks the client to send. */
export interface CallInput {
  method: string
  /** Path relative to the base URL, with its query string: `/agents?limit=5`. */
  path: string
  /** The API key for `Authorization: Bearer <key>`; `null` sends no Authorization header. */
  key: string | null
  /** A raw Authorization header, replacing the Bearer header built from `key`. */
  authorization?: string
  headers?: Record<string, string>
  /** A JSON body, serialised and sent with `Content-Type: application/json`. */
  json?: unknown
  /** A raw body, sent as is (set `content-type` in `headers` yourself). */
  body?: string
  /** The operation the request is meant for (conformance uses it). */
  operationId?: string
  /** Return a 429 as it is instead of waiting for `Retry-After` and retrying. */
  accept429?: boolean
}

/** Thrown when the request budget of the run is spent; the check is then skipped, not failed. */
export class BudgetExhausted extends Error {}

/** Thrown when the target asks to wait longer than the run may (`Retry-After` over `--max-wait`). */
export class RetryTooLong extends Error {}

export interface ClientOptions {
  /** Base URL including the version segment, e.g. `http://127.0.0.1:4010/v1`. */
  baseUrl: string
  /** How requests are sent (`nodeTransport()`, or `fetchTransport(fetch)`). */
  transport: Transport
  /** Most requests this client may send; Infinity for none. */
  budget: number
  /** Longest wait (seconds) the client accepts to honour `Retry-After` or an exhausted window. */
  maxWaitSeconds: number
  /** Wait when a window is exhausted (`r=0`) before sending the next request. */
  pace: boolean
  sleep?: (ms: number) => Promise<void>
  /** Called with every exchange (reports, request ids). */
  onExchange?: (exchange: Exchange) => void
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The suite's HTTP client: plain fetch, with a request budget and respect for `Retry-After`. */
export function createClient(options: ClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '')
  const sleep = options.sleep ?? defaultSleep
  let used = 0
  let waitUntil = 0

  async function sendOnce(input: CallInput): Promise<Exchange> {
    if (used >= options.budget)
      throw new BudgetExhausted(`the request budget of ${options.budget} requests is spent (--budget)`)
    const pause = waitUntil - Date.now()
    if (options.pace && pause > 0) await sleep(pause)
    used++
    const headers: Record<string, string> = {}
    if (input.authorization !== undefined) headers.authorization = input.authorization
    else if (input.key !== null) headers.authorization = `Bearer ${input.key}`
    let body = input.body
    if (input.json !== undefined) {
      body = JSON.stringify(input.json)
      headers['content-type'] = 'application/json'
    }
    Object.assign(headers, input.headers)
    const request: SentRequest = { method: input.method.toUpperCase(), url: base + input.path, headers }
    if (body !== undefined) request.body = body
    const started = performance.now()
    const res = await options.transport(request)
    const text = res.text
    const responseHeaders = res.headers
    let json: unknown
    try {
      json = text === '' ? undefined : JSON.parse(text)
    } catch {
      json = undefined
    }
    const response: ReceivedResponse = {
      status: res.status,
      headers: responseHeaders,
      text,
      json,
      durationMs: performance.now() - started,
    }
    const exchange: Exchange = { request, response, operationId: input.operationId }
    options.onExchange?.(exchange)
    notePacing(response)
    return exchange
  }

  function notePacing(response: ReceivedResponse): void {
    if (!options.pace) return
    const states = /"[^"]+";r=0;t=(\d+)/g
    let longest = 0
    for (const match of (response.headers.ratelimit ?? '').matchAll(states))
      longest = Math.max(longest, Number(match[1]))
    if (longest > 0 && longest <= options.maxWaitSeconds) waitUntil = Date.now() + longest * 1000
  }

  return {
    baseUrl: base,
    /** Sends a request; an unexpected 429 is retried once after `Retry-After` (when short enough). */
    async send(input: CallInput): Promise<Exchange> {
      const exchange = await sendOnce(input)
      if (exchange.response.status !== 429 || input.accept429) return exchange
      const retryAfter = Number(exchange.response.headers['retry-after'] ?? Number.NaN)
      if (!Number.isFinite(retryAfter) || retryAfter > options.maxWaitSeconds)
        throw new RetryTooLong(
          `the target answered 429 with Retry-After ${exchange.response.headers['retry-after'] ?? '(none)'}, longer than --max-wait ${options.maxWaitSeconds} s`,
        )
      await sleep(retryAfter * 1000)
      return sendOnce(input)
    },
    /** Requests sent so far. */
    used: () => used,
    budget: options.budget,
  }
}

export type ApiClient = ReturnType<typeof createClient>

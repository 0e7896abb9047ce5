import { BudgetExhausted, RetryTooLong, TargetUnreachable } from './errors.ts'
import type { Exchange, ReceivedResponse, SentRequest } from './exchange.ts'
import { createPacer, type Pacer } from './pacer.ts'
import type { Transport } from './transport.ts'

export { BudgetExhausted, RetryTooLong, TargetUnreachable }

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

export interface ClientOptions {
  /** Base URL including the version segment, e.g. `http://127.0.0.1:4010/v1`. */
  baseUrl: string
  /** How requests are sent (`nodeTransport()`, or `fetchTransport(fetch)`). */
  transport: Transport
  /** Most requests this client may send; Infinity for none. */
  budget: number
  /** Longest wait (seconds) the client accepts to honour `Retry-After`. */
  maxWaitSeconds: number
  /**
   * Stay within the account's windows: read every answer's rate-limit fields and wait before a request
   * when a window is used up (the pacer's `ready`). Without it requests are never held back.
   */
  pace: boolean
  /** Where waits happen and are announced (shared by the clients of a run); one of its own by default. */
  pacer?: Pacer
  /** Called with every exchange (reports, request ids). */
  onExchange?: (exchange: Exchange) => void
}

/** The suite's HTTP client: plain requests, with a request budget, pacing, and respect for `Retry-After`. */
export function createClient(options: ClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '')
  const pacer = options.pacer ?? createPacer({ maxWaitSeconds: options.maxWaitSeconds })
  let used = 0

  async function sendOnce(input: CallInput): Promise<Exchange> {
    if (used >= options.budget)
      throw new BudgetExhausted(`the request budget of ${options.budget} requests is spent (--budget)`)
    const keyed = input.authorization !== undefined || input.key !== null
    if (options.pace && keyed) await pacer.ready(`${input.method.toUpperCase()} ${input.path}`)
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
    let res: Awaited<ReturnType<Transport>>
    try {
      res = await options.transport(request)
    } catch (error) {
      throw new TargetUnreachable(`${request.method} ${request.url}`, error)
    }
    let json: unknown
    try {
      json = res.text === '' ? undefined : JSON.parse(res.text)
    } catch {
      json = undefined
    }
    const response: ReceivedResponse = {
      status: res.status,
      headers: res.headers,
      text: res.text,
      json,
      durationMs: performance.now() - started,
    }
    const exchange: Exchange = { request, response, operationId: input.operationId }
    options.onExchange?.(exchange)
    if (options.pace) pacer.observe(response.headers)
    return exchange
  }

  return {
    baseUrl: base,
    /** Sends a request; an unexpected 429 is retried once after `Retry-After` (when short enough). */
    async send(input: CallInput): Promise<Exchange> {
      const exchange = await sendOnce(input)
      if (exchange.response.status !== 429 || input.accept429) return exchange
      const header = exchange.response.headers['retry-after']
      const retryAfter = Number(header ?? Number.NaN)
      if (!Number.isFinite(retryAfter) || retryAfter > options.maxWaitSeconds)
        throw new RetryTooLong(
          `the target answered 429 with Retry-After ${header ?? '(none)'}`,
          options.maxWaitSeconds,
        )
      await pacer.wait(
        retryAfter * 1000,
        `Retry-After ${retryAfter} s of a 429 answer`,
        `${exchange.request.method} ${input.path}`,
      )
      return sendOnce(input)
    },
    /** Requests sent so far. */
    used: () => used,
    budget: options.budget,
  }
}

export type ApiClient = ReturnType<typeof createClient>

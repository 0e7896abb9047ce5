/** A function that answers a request as a receiver's route does (a fetch handler: Hono, Next.js, Workers). */
export type FetchHandler = (request: Request) => Response | Promise<Response>

/**
 * The receiver under test: a URL it listens at, or its fetch handler called in-process (`url` is then only the
 * URL its requests carry, `http://localhost/webhooks` by default).
 */
export type ReceiverTarget = { url: string } | { fetch: FetchHandler; url?: string }

/** One POST of a webhook, as it is sent. */
export interface Delivery {
  url: string
  headers: Record<string, string>
  body: string
}

/** How the receiver answered a delivery, or why it did not. */
export interface DeliveryAnswer {
  /** The HTTP status; undefined when no answer came. */
  status?: number
  /** Header names lower case. */
  headers: Record<string, string>
  text: string
  durationMs: number
  /** Why no answer came: `no answer within 10 s`, `could not connect (ECONNREFUSED)`, `the handler threw: ...`. */
  error?: string
  /** The receiver could not be reached at all (no connection): the run stops rather than fail every check. */
  unreachable?: boolean
}

/** The URL deliveries go to. */
export function targetUrl(target: ReceiverTarget): string {
  return target.url ?? 'http://localhost/webhooks'
}

/** Answer bytes kept for the report (the rest is dropped). */
const MAX_ANSWER_CHARS = 64 * 1024

class Timeout extends Error {}

/** Resolves as `work` does, or rejects with a Timeout after `ms`. */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Timeout()), ms)
  })
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

const elapsed = (started: number) => performance.now() - started

/** Why a network request got no answer, in words. */
function networkFailure(error: unknown): { error: string; unreachable: boolean } {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  const code = cause?.code ?? cause?.message ?? (error as Error).message
  return { error: `could not connect (${code})`, unreachable: true }
}

/**
 * POSTs a delivery and reads the answer within `timeoutMs` (the answer's body included). Redirects are not
 * followed: a 3xx is the answer. A fetch handler gets a Request whose signal aborts at the timeout.
 */
export async function sendDelivery(
  target: ReceiverTarget,
  delivery: Delivery,
  timeoutMs: number,
): Promise<DeliveryAnswer> {
  const started = performance.now()
  const controller = new AbortController()
  const init: RequestInit = {
    method: 'POST',
    headers: delivery.headers,
    body: delivery.body,
    redirect: 'manual',
    signal: controller.signal,
  }
  try {
    const answer = await within(
      (async () => {
        const response =
          'fetch' in target
            ? await target.fetch(new Request(delivery.url, init))
            : await fetch(delivery.url, init)
        const text = await response.text()
        return { response, text }
      })(),
      timeoutMs,
    )
    return {
      status: answer.response.status,
      headers: Object.fromEntries(answer.response.headers),
      text: answer.text.slice(0, MAX_ANSWER_CHARS),
      durationMs: elapsed(started),
    }
  } catch (error) {
    const durationMs = elapsed(started)
    if (error instanceof Timeout)
      return { headers: {}, text: '', durationMs, error: `no answer within ${timeoutMs / 1000} s` }
    if ('fetch' in target)
      return { headers: {}, text: '', durationMs, error: `the handler threw: ${(error as Error).message}` }
    return { headers: {}, text: '', durationMs, ...networkFailure(error) }
  } finally {
    controller.abort()
  }
}

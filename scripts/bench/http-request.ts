import { type Agent, request } from 'node:http'

/** One HTTP response, whole. */
export interface HttpResult {
  status: number
  /** Raw header pairs as sent (names in the server's case). */
  rawHeaders: string[]
  body: Buffer
}

export interface HttpInit {
  method?: string
  headers?: Record<string, string>
  body?: string
  agent?: Agent
  timeoutMs?: number
}

/** A minimal node:http client (no fetch start-up cost in the timings); rejects on network errors. */
export function httpRequest(url: string, init: HttpInit = {}): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: init.method ?? 'GET',
        headers: init.headers,
        agent: init.agent,
        timeout: init.timeoutMs ?? 5_000,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }),
        )
        res.on('error', reject)
      },
    )
    req.on('timeout', () => req.destroy(new Error(`timeout: ${url}`)))
    req.on('error', reject)
    req.end(init.body)
  })
}

/**
 * Retries `url` until it answers 200, every `intervalMs`; resolves with the time (ms, from `since`)
 * of the first 200. Rejects after `timeoutMs`.
 */
export async function waitFor200(
  url: string,
  init: HttpInit,
  since: number,
  { intervalMs = 10, timeoutMs = 30_000 } = {},
): Promise<number> {
  const deadline = since + timeoutMs
  let last = 'no answer'
  while (performance.now() < deadline) {
    try {
      const result = await httpRequest(url, { ...init, timeoutMs: 2_000 })
      if (result.status === 200) return performance.now() - since
      last = `status ${result.status}`
    } catch (error) {
      last = (error as Error).message
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
  throw new Error(`${url} gave no 200 within ${timeoutMs} ms (${last}).`)
}

/** The platform's error envelope (docs/decisions/007-errors.md). */
export interface ApiError {
  type: string
  code: string
  message: string
}

/** A response as a value: `{ ok: true, data }` or `{ ok: false, error }`, never an exception. */
export type ApiResult<T> =
  | { ok: true; status: number; data: T; headers: Headers }
  | { ok: false; status: number; error: ApiError; headers: Headers }

/** A small client for the v1 API: `Authorization: Bearer <key>` on every request. */
export function createApiClient(baseUrl: string, key: () => string) {
  const root = baseUrl.replace(/\/+$/, '')
  return {
    /** `GET <baseUrl><path>`. */
    async get<T>(path: string): Promise<ApiResult<T>> {
      let response: Response
      try {
        response = await fetch(`${root}${path}`, {
          headers: { authorization: `Bearer ${key()}`, accept: 'application/json' },
        })
      } catch (error) {
        const message = `The API did not answer: ${error instanceof Error ? error.message : String(error)}`
        return {
          ok: false,
          status: 0,
          error: { type: 'network_error', code: 'network_error', message },
          headers: new Headers(),
        }
      }
      const body = (await response.json().catch(() => null)) as { error?: ApiError } | null
      if (response.ok)
        return { ok: true, status: response.status, data: body as T, headers: response.headers }
      const error = body?.error ?? { type: 'api_error', code: 'unknown', message: `HTTP ${response.status}` }
      return { ok: false, status: response.status, error, headers: response.headers }
    },
  }
}

export type ApiClient = ReturnType<typeof createApiClient>

/** The burst quota from `RateLimit-Policy: "hourly";q=1000;w=3600, "burst";q=50;w=60`, if present. */
export function burstQuota(headers: Headers): number | undefined {
  const match = /"burst";q=(\d+)/.exec(headers.get('ratelimit-policy') ?? '')
  return match ? Number(match[1]) : undefined
}

import { createMockPlatform, type MockPlatform } from '../../mocks/platform.ts'
import { engineFetch } from '../mutants/engine-fetch.ts'

/**
 * The forms docs/decisions/011-allowed-forms.md allows where the mock has one canonical form. Each rewrites the mock's
 * answers the way an implementation that made the other choice would answer, consistently (the same instant,
 * the same object), so the whole suite can run against it.
 */
export const ALLOWED_FORMS = {
  /** `2026-03-04T09:15:27Z` as `2026-03-04T09:15:27.000Z` (what `Date.prototype.toISOString` writes). */
  'fractional-timestamps': () => ({ body: fractionalTimestamps }),
  /**
   * Timestamps the implementation makes carry a fraction of a second, written as Go's `RFC3339Nano` writes
   * them (trailing zeros trimmed, none when the fraction is zero: `...:27.25Z`, `...:27.5Z`, `...:28Z`), so
   * that text order and time order differ. Values a client sends back are read as the same instants.
   */
  'nano-timestamps': nanoTimestamps,
  /** `WWW-Authenticate: Bearer`, exactly as docs/decisions/002-authentication.md writes it: no realm, no error. */
  'bare-bearer': () => ({ headers: (h: Headers) => rewriteHeader(h, 'www-authenticate', () => 'Bearer') }),
  /** `Location: /v1/agents/agt_...` (an absolute path, relative to the request's origin). */
  'relative-location': () => ({
    headers: (h: Headers) => rewriteHeader(h, 'location', (value) => new URL(value).pathname),
  }),
  /** Error envelopes without `param` and `request_id` (both optional: docs/decisions/007-errors.md). */
  'no-optional-error-fields': () => ({ body: withoutOptionalErrorFields }),
  /** The integrations list in another order (reversed). */
  'shuffled-integrations': () => ({ body: shuffledIntegrations }),
} satisfies Record<string, () => Alteration>

export type AllowedForm = keyof typeof ALLOWED_FORMS

/** How an alteration rewrites a request's URL on the way in, and an answer's headers and JSON body on the way out. */
export interface Alteration {
  url?: (url: URL) => void
  headers?: (headers: Headers, request: Request) => void
  body?: (body: unknown, request: Request) => unknown
}

function rewriteHeader(headers: Headers, name: string, rewrite: (value: string) => string): void {
  const value = headers.get(name)
  if (value !== null) headers.set(name, rewrite(value))
}

const WHOLE_SECONDS = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})Z$/

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value)
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map))
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, map)]))
  return value
}

function fractionalTimestamps(body: unknown): unknown {
  return mapStrings(body, (text) => text.replace(WHOLE_SECONDS, '$1.000Z'))
}

/** A fraction of a second of its own for each whole second (deterministic), written without trailing zeros. */
function nanoTimestamps(): Alteration {
  const original = new Map<string, string>()
  const fraction = (text: string) => {
    let hash = 0
    for (const char of text) hash = (hash * 31 + char.charCodeAt(0)) >>> 0
    const digits = String(hash % 1_000_000_000)
      .padStart(9, '0')
      .replace(/0+$/, '')
    return digits === '' ? '' : `.${digits}`
  }
  return {
    url(url) {
      for (const [name, value] of [...url.searchParams]) {
        const back = original.get(value)
        if (back) url.searchParams.set(name, back)
      }
    },
    body(body, request) {
      // Analytics echoes the instants the client asked for (bucket boundaries): they stay as sent.
      if (new URL(request.url).pathname.includes('/analytics/')) return body
      return mapStrings(body, (text) => {
        const match = WHOLE_SECONDS.exec(text)
        if (!match) return text
        const altered = `${match[1]}${fraction(text)}Z`
        original.set(altered, text)
        return altered
      })
    },
  }
}

function withoutOptionalErrorFields(body: unknown): unknown {
  const error = (body as { error?: Record<string, unknown> } | undefined)?.error
  if (!error || typeof error !== 'object') return body
  const { param: _param, request_id: _requestId, ...rest } = error
  return { ...(body as object), error: rest }
}

function shuffledIntegrations(body: unknown, request: Request): unknown {
  const list = body as { object?: string; data?: unknown[] } | undefined
  if (new URL(request.url).pathname.endsWith('/integrations') && list?.object === 'list' && list.data)
    return { ...list, data: [...list.data].reverse() }
  return body
}

/** A fetch to the mock's engine whose answers are rewritten by the alterations, in order. */
export function alteredFetch(inner: typeof fetch, alterations: readonly Alteration[]): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    const api = url.pathname.includes('/v1/')
    if (api) for (const alteration of alterations) alteration.url?.(url)
    const request = new Request(url, init)
    const response = await inner(url, init)
    if (!api) return response
    const headers = new Headers(response.headers)
    for (const alteration of alterations) alteration.headers?.(headers, request)
    let text = await response.text()
    if ((headers.get('content-type') ?? '').includes('json') && text !== '') {
      let body: unknown = JSON.parse(text)
      for (const alteration of alterations) if (alteration.body) body = alteration.body(body, request)
      text = JSON.stringify(body)
    }
    headers.delete('content-length')
    return new Response(response.status === 204 ? null : text, { status: response.status, headers })
  }
}

/** A fresh mock platform and a fetch that reaches it in-process with the given alterations. */
export async function alteredMock(
  baseUrl: string,
  alterations: readonly Alteration[],
  platform?: MockPlatform,
) {
  const mock = platform ?? (await createMockPlatform())
  return {
    platform: mock,
    fetch: alteredFetch(
      engineFetch(() => mock, baseUrl),
      alterations,
    ),
  }
}

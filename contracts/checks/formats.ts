/**
 * How the checks read values whose form the contract leaves open (docs/decisions/011-allowed-forms.md): timestamps
 * with or without fractional seconds, a `Bearer` challenge with or without parameters, a `Location` that is
 * absolute or relative. Checks compare what the values mean, never how they are spelled.
 */

/** The instant of an RFC 3339 timestamp in ms (NaN when it is not one). */
export function instant(value: unknown): number {
  return typeof value === 'string' ? Date.parse(value) : Number.NaN
}

/** An instant (ms) as a query sends it: RFC 3339 in UTC to the second (`2026-03-04T09:15:27Z`). */
export const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

/** Whether two timestamps name the same instant (`2026-03-04T09:15:27Z` = `2026-03-04T09:15:27.000Z`). */
export function sameInstant(a: unknown, b: unknown): boolean {
  const x = instant(a)
  return !Number.isNaN(x) && x === instant(b)
}

/** Orders timestamps by instant (for `sort`); unparseable ones last. */
export function byInstant(a: unknown, b: unknown): number {
  const x = instant(a)
  const y = instant(b)
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) ? (Number.isNaN(y) ? 0 : 1) : -1
  return x - y
}

/** An RFC 7235 challenge: its scheme (lower case) and parameters (names lower case, values unquoted). */
export interface Challenge {
  scheme: string
  params: Map<string, string>
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+"
const PARAM = new RegExp(`\\s*(${TOKEN})\\s*=\\s*("(?:[^"\\\\]|\\\\.)*"|${TOKEN})\\s*(?:,|$)`, 'y')

/**
 * Parses the first challenge of a `WWW-Authenticate` value: `Bearer`, `Bearer realm="api"`,
 * `Bearer realm="api", error="invalid_token"` all parse; undefined when the value is not a challenge.
 */
export function parseChallenge(header: string | undefined): Challenge | undefined {
  const match = new RegExp(`^\\s*(${TOKEN})(?:\\s+|$)`).exec(header ?? '')
  if (!match?.[1]) return undefined
  const params = new Map<string, string>()
  const rest = (header ?? '').slice(match[0].length)
  PARAM.lastIndex = 0
  while (PARAM.lastIndex < rest.length) {
    const start = PARAM.lastIndex
    const param = PARAM.exec(rest)
    if (!param?.[1] || param[2] === undefined) {
      // What follows is not a parameter list (e.g. a token68): keep what was read, if anything.
      if (start === 0 && rest.trim() !== '') return undefined
      break
    }
    const raw = param[2]
    const value = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw
    params.set(param[1].toLowerCase(), value)
  }
  return { scheme: match[1].toLowerCase(), params }
}

/**
 * Where a `Location` points, resolved against the URL of the request that got it (RFC 9110: a relative
 * reference is resolved against the target URI). Undefined when it is not a URI reference.
 */
export function resolveLocation(location: string | undefined, requestUrl: string): URL | undefined {
  if (location === undefined || location.trim() === '') return undefined
  try {
    return new URL(location, requestUrl)
  } catch {
    return undefined
  }
}

/**
 * Whether a `Location`, absolute or relative, points at the object: resolved against the request's URL, its
 * path ends with `suffix` (`/agents/agt_...`). The host is not compared: behind a proxy the implementation
 * may name its own.
 */
export function locates(location: string | undefined, requestUrl: string, suffix: string): boolean {
  return resolveLocation(location, requestUrl)?.pathname.endsWith(suffix) ?? false
}

const TIMESTAMP = /^\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$/

/**
 * Whether two JSON values mean the same: objects with the same members whatever their order, arrays element
 * by element, timestamps as the instants they name (`...:27Z` = `...:27.000Z`), everything else as is.
 */
export function sameMeaning(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string')
    return a === b || (TIMESTAMP.test(a) && TIMESTAMP.test(b) && sameInstant(a, b))
  if (Array.isArray(a) || Array.isArray(b))
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => sameMeaning(item, b[i]))
    )
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const x = a as Record<string, unknown>
    const y = b as Record<string, unknown>
    const keys = Object.keys(x)
    return (
      keys.length === Object.keys(y).length &&
      keys.every((key) => Object.hasOwn(y, key) && sameMeaning(x[key], y[key]))
    )
  }
  return a === b
}

/**
 * The same instant written another way, as the contract lets a client send it in a query parameter (any
 * offset, a fraction of a second, `t` in lower case): `2026-03-06T19:26:11Z` -> `2026-03-06t14:26:11.0-05:00`.
 * The fraction is kept as written, so the instant is exactly the same. Undefined when `value` is not a timestamp.
 */
export function otherOffset(value: string): string | undefined {
  const match = TIMESTAMP.exec(value)
  if (!match) return undefined
  const whole = Date.parse(`${value.slice(0, 19).replace('t', 'T')}${match[2]?.toUpperCase()}`)
  if (Number.isNaN(whole)) return undefined
  const shifted = new Date(whole - 5 * 3_600_000).toISOString().slice(0, 19).replace('T', 't')
  return `${shifted}${match[1] ?? '.0'}-05:00`
}

import { type BareItem, parseList } from './structured-fields.ts'

/** One quota policy of `RateLimit-Policy`: `"hourly";q=100;w=3600`. */
export interface QuotaPolicy {
  name: string
  quota: number
  window: number
}

/** One entry of `RateLimit`: `"hourly";r=57;t=1843`. */
export interface QuotaState {
  name: string
  remaining: number
  reset: number
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string }

const isInteger = (v: BareItem | undefined): v is number => typeof v === 'number' && Number.isInteger(v)

/** Parses `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-10): a list of named `q`/`w` policies. */
export function parseRateLimitPolicy(header: string): Parsed<QuotaPolicy[]> {
  const parsed = parseList(header)
  if (!parsed.ok)
    return { ok: false, error: `RateLimit-Policy is not a Structured Field List: ${parsed.error}` }
  const policies: QuotaPolicy[] = []
  for (const member of parsed.members) {
    if (typeof member.value !== 'string')
      return { ok: false, error: 'RateLimit-Policy: each policy must be named by a quoted string' }
    const q = member.params.get('q')
    const w = member.params.get('w')
    if (!isInteger(q) || q < 0) return { ok: false, error: `policy "${member.value}" has no integer q` }
    if (w !== undefined && (!isInteger(w) || w <= 0))
      return { ok: false, error: `policy "${member.value}" has a bad w` }
    policies.push({ name: member.value, quota: q, window: w ?? 1 })
  }
  return { ok: true, value: policies }
}

/** Parses `RateLimit` (draft-ietf-httpapi-ratelimit-headers-10): a list of named `r`/`t` states. */
export function parseRateLimit(header: string): Parsed<QuotaState[]> {
  const parsed = parseList(header)
  if (!parsed.ok) return { ok: false, error: `RateLimit is not a Structured Field List: ${parsed.error}` }
  const states: QuotaState[] = []
  for (const member of parsed.members) {
    if (typeof member.value !== 'string')
      return { ok: false, error: 'RateLimit: each entry must be named by a quoted string' }
    const r = member.params.get('r')
    const t = member.params.get('t')
    if (!isInteger(r) || r < 0) return { ok: false, error: `"${member.value}" has no non-negative integer r` }
    if (t !== undefined && (!isInteger(t) || t < 0))
      return { ok: false, error: `"${member.value}" has a bad t` }
    states.push({ name: member.value, remaining: r, reset: t ?? 0 })
  }
  return { ok: true, value: states }
}

/** Both rate-limit fields of a response, parsed and checked against each other. */
export interface RateLimitView {
  policies: QuotaPolicy[]
  states: QuotaState[]
  /** Remaining quota of a named window. */
  remaining(name: string): number | undefined
  reset(name: string): number | undefined
}

/**
 * Reads `RateLimit-Policy`, `RateLimit` and the legacy `X-RateLimit-*` of a response and checks that they
 * agree: same policies, `r <= q`, `t <= w`, and the legacy fields describe the window with the least remaining.
 */
export function readRateLimitHeaders(headers: Record<string, string>): Parsed<RateLimitView> {
  const policyHeader = headers['ratelimit-policy']
  const stateHeader = headers.ratelimit
  if (policyHeader === undefined || stateHeader === undefined)
    return { ok: false, error: 'RateLimit-Policy and RateLimit must both be present' }
  const policies = parseRateLimitPolicy(policyHeader)
  if (!policies.ok) return policies
  const states = parseRateLimit(stateHeader)
  if (!states.ok) return states
  const names = policies.value.map((p) => p.name).join(',')
  if (states.value.map((s) => s.name).join(',') !== names)
    return {
      ok: false,
      error: `RateLimit names (${stateHeader}) differ from RateLimit-Policy (${policyHeader})`,
    }
  for (const state of states.value) {
    const policy = policies.value.find((p) => p.name === state.name) as QuotaPolicy
    if (state.remaining > policy.quota)
      return { ok: false, error: `"${state.name}": r=${state.remaining} exceeds q=${policy.quota}` }
    if (state.reset > policy.window)
      return { ok: false, error: `"${state.name}": t=${state.reset} exceeds w=${policy.window}` }
  }
  const legacy = checkLegacy(headers, policies.value, states.value)
  if (legacy) return { ok: false, error: legacy }
  return {
    ok: true,
    value: {
      policies: policies.value,
      states: states.value,
      remaining: (name) => states.value.find((s) => s.name === name)?.remaining,
      reset: (name) => states.value.find((s) => s.name === name)?.reset,
    },
  }
}

function checkLegacy(
  headers: Record<string, string>,
  policies: QuotaPolicy[],
  states: QuotaState[],
): string | undefined {
  const limit = headers['x-ratelimit-limit']
  const remaining = headers['x-ratelimit-remaining']
  const reset = headers['x-ratelimit-reset']
  if (limit === undefined || remaining === undefined || reset === undefined)
    return 'X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset must all be present'
  if (![limit, remaining, reset].every((v) => /^[0-9]+$/.test(v)))
    return `X-RateLimit-* must be integers (got ${limit}, ${remaining}, ${reset})`
  const least = Math.min(...states.map((s) => s.remaining))
  if (Number(remaining) !== least)
    return `X-RateLimit-Remaining is ${remaining} but the window with the least remaining has r=${least}`
  const candidates = states
    .filter((s) => s.remaining === least)
    .map((s) => policies.find((p) => p.name === s.name)?.quota)
  if (!candidates.includes(Number(limit)))
    return `X-RateLimit-Limit is ${limit}, not the q of the window with the least remaining (${candidates.join(' or ')})`
  return undefined
}

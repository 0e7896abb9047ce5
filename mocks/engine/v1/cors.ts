// `Prefer` (`code=<status>`) and `Mock-Scenario` belong to the mock's scenarios (docs/decisions/012-scenarios.md).
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, Prefer'
const EXPOSED_HEADERS =
  'Request-Id, RateLimit, RateLimit-Policy, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Idempotent-Replayed, Location, WWW-Authenticate, Mock-Scenario, Preference-Applied'

/** CORS headers for a response to a request from `origin` (docs/decisions/001-general.md). */
export function corsHeaders(origin: string | undefined): Record<string, string> {
  if (!origin) return {}
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': EXPOSED_HEADERS,
    vary: 'Origin',
  }
}

/** The answer to a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`). */
export function preflightHeaders(origin: string | undefined, allow: string): Record<string, string> {
  return {
    ...corsHeaders(origin),
    'access-control-allow-methods': allow,
    'access-control-allow-headers': ALLOWED_HEADERS,
    'access-control-max-age': '600',
  }
}

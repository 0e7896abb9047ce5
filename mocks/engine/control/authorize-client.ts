import { ApiError } from '../api-error.ts'
import type { Step } from '../pipeline/compose.ts'
import { methodOf, type RequestContext } from '../pipeline/request-context.ts'
import { constantTimeEqual, sha256Hex } from '../secrets.ts'
import { createHostCheck } from './host-check.ts'

export interface ClientPolicy {
  /** When set, every control request must carry `Authorization: Bearer <token>`; otherwise loopback only. */
  adminToken?: string
  /**
   * Names the control plane answers to besides loopback names and IP addresses (`parseAllowedHost` forms),
   * against DNS rebinding. Undefined: no `Host` check (in-process adapters, which only see their own base URL).
   */
  allowedHosts?: readonly string[]
  /** Whether a request is for a page (docs, dashboard): pages hold no secret and load without the token. */
  isPage(ctx: RequestContext): boolean
}

/** Whether an address is loopback (127.0.0.0/8, ::1, IPv4-mapped loopback), or unknown (in-process). */
export function isLoopback(ip: string | undefined): boolean {
  if (ip === undefined) return true
  const address = ip.replace(/^::ffff:/i, '')
  return address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address)
}

/**
 * A page of another site changing the mock through the user's browser (CSRF). Reads stay open: a navigation to
 * the dashboard is welcome, and without CORS headers no other site can read an answer. `Sec-Fetch-Site:
 * same-origin` is the browser's word that the page is of the origin it addressed: this mock under any of its
 * names, or a dev server proxying to it (whose `Host` the Host check judged), so `Origin` is compared with the
 * mock's own only when a browser does not say (or a client that is no browser).
 */
function crossSite(ctx: RequestContext): string | undefined {
  const { request } = ctx
  if (['GET', 'HEAD', 'OPTIONS'].includes(methodOf(ctx))) return undefined
  const site = request.headers['sec-fetch-site']
  if (site === 'cross-site' || site === 'same-site')
    return `${site}, Origin ${request.headers.origin ?? 'none'}`
  if (site === 'same-origin') return undefined
  const origin = request.headers.origin
  if (origin === undefined) return undefined
  const own = request.baseUrl ? new URL(request.baseUrl).origin : ctx.url.origin
  return origin === own ? undefined : origin
}

/**
 * Who may use the control plane: a request addressed to this mock (403 `host_not_allowed` otherwise, against
 * DNS rebinding); no other site's page for changes (403 `cross_site_request`); then the admin token when one is
 * set (401; pages load without it, and the dashboard asks for it), else a loopback client (403).
 */
export function authorizeClientStep(policy: ClientPolicy): Step {
  // Compared as SHA-256 digests: equal lengths, so the comparison reveals neither content nor length.
  const adminTokenHash = policy.adminToken === undefined ? undefined : sha256Hex(policy.adminToken)
  const hostAllowed = policy.allowedHosts === undefined ? undefined : createHostCheck(policy.allowedHosts)

  function refusal(ctx: RequestContext): ApiError | undefined {
    const { request } = ctx
    const host = request.headers.host
    if (hostAllowed && !hostAllowed(host)) {
      const shown = (host ?? '').replace(/[^\x21-\x7e]/g, '?').slice(0, 100)
      const name = shown.replace(/:\d*$/, '')
      return new ApiError(
        403,
        'permission_error',
        'host_not_allowed',
        `The control plane answers only requests addressed to this mock (localhost, an IP address, --host or --allowed-hosts), not Host '${shown}' (a guard against DNS rebinding). If '${name}' is yours, start the mock with --allowed-hosts ${name}.`,
      )
    }
    const foreign = crossSite(ctx)
    if (foreign !== undefined)
      return new ApiError(
        403,
        'permission_error',
        'cross_site_request',
        `The control plane refuses changes from other sites' pages (${foreign}): open the dashboard at this mock's own address (/_mock/dashboard), or behind a dev server that proxies /_mock to the mock (see the README, "Behind a dev-server proxy").`,
      )
    if (adminTokenHash) {
      if (policy.isPage(ctx)) return undefined
      const header = request.headers.authorization ?? ''
      const token = /^bearer\s+(.+)$/i.exec(header.trim())?.[1] ?? ''
      if (constantTimeEqual(sha256Hex(token), adminTokenHash)) return undefined
      return new ApiError(
        401,
        'authentication_error',
        'invalid_admin_token',
        'The control plane needs the admin token: Authorization: Bearer <admin token>.',
        {},
        { 'www-authenticate': 'Bearer realm="mock-control"' },
      )
    }
    if (isLoopback(request.clientIp)) return undefined
    return new ApiError(
      403,
      'permission_error',
      'loopback_only',
      'The control plane answers only loopback clients unless the mock was started with --admin-token.',
    )
  }

  return (ctx, next) => {
    const refused = refusal(ctx)
    if (refused) throw refused
    return next()
  }
}

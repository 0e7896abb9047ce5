import { type Account, type AccountStore, type Limits, limitsOf, type Plan } from './accounts.ts'
import { ApiError, errors } from './api-error.ts'
import type { Clock } from './clock.ts'
import { contractDrift } from './contract/contract-drift.ts'
import type { OpenApiDocument } from './contract/document.ts'
import { createRouter, type Operation } from './contract/router.ts'
import { createValidators } from './contract/validators.ts'
import { json } from './error-response.ts'
import { createHostCheck } from './host-check.ts'
import type { Journal } from './journal.ts'
import { assertJsonDepth } from './json-depth.ts'
import type { KeyInput, KeyStore } from './key-store.ts'
import { assertRoom, LIMITS } from './limits.ts'
import type { RateLimiter } from './rate-limiter.ts'
import { MAX_BODY_BYTES, parseJsonBody } from './request-body.ts'
import { constantTimeEqual, sha256Hex } from './secrets.ts'
import type { EngineRequest, EngineResponse } from './types.ts'

export interface ControlPlaneOptions {
  document: OpenApiDocument
  accounts: AccountStore
  keys: KeyStore
  clock: Clock
  rateLimiter: RateLimiter
  journal: Journal
  /** Back to the seeded state. */
  reset: () => void
  /** Gives a new account its starting data (integrations, owner). */
  provisionAccount: (account: Account) => void
  /** Drops an account's resources (agents, call logs, ...) when the account is deleted. */
  deleteAccountData: (accountId: string) => void
  /** The seeded demo account, which cannot be deleted (a reset brings back its seeded state). */
  demoAccountId: () => string
  /** When set, every control request must carry `Authorization: Bearer <token>`; otherwise loopback only. */
  adminToken?: string
  /**
   * Names the control plane answers to besides loopback names and IP addresses (`parseAllowedHost`
   * forms), against DNS rebinding. Undefined: no `Host` check (in-process adapters, where the handlers
   * only ever see their own base URL).
   */
  allowedHosts?: readonly string[]
  /** Extra pages served under `/_mock/` (docs, dashboard), by path. */
  pages?: Record<string, () => EngineResponse>
  /**
   * Handlers of further control-plane operations (`mock-control.yaml` operationIds), from the modules that
   * own them (scenarios, simulated calls, ...); the request is authorized, routed and validated first.
   */
  handlers?: Record<string, ControlHandler>
  seed: number
  /** Checks every answer of a control-plane operation against `mock-control.yaml` (a drift: 500). */
  checkResponses?: boolean
  /** Called with every drift `checkResponses` finds. */
  onContractViolation?: (message: string) => void
}

/** A control-plane operation: the validated request in, the response out (or an `ApiError` thrown). */
export type ControlHandler = (input: {
  params: Record<string, string>
  query: Record<string, unknown>
  body: unknown
  /** The API's public base URL (ending in `/v1`) as the request reached it. */
  baseUrl?: string
}) => EngineResponse

/** Whether an address is loopback (127.0.0.0/8, ::1, IPv4-mapped loopback), or unknown (in-process). */
export function isLoopback(ip: string | undefined): boolean {
  if (ip === undefined) return true
  const address = ip.replace(/^::ffff:/i, '')
  return address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address)
}

/** The mock's control plane under `/_mock/` (openapi/mock-control.yaml): the simulated dashboard. */
export function createControlPlane(options: ControlPlaneOptions) {
  const { document, accounts, keys, clock, rateLimiter, journal } = options
  const router = createRouter(document)
  const validators = createValidators(document)

  function account(id: string) {
    const found = accounts.get(id)
    if (!found) throw errors.resourceNotFound('account', id, 'account_id')
    return found
  }

  function presentAccount(id: string) {
    const found = account(id)
    const { custom_limits, ...rest } = found
    return {
      ...rest,
      limits: limitsOf(found),
      custom_limits: custom_limits !== null,
    }
  }

  const handlers: Record<string, ControlHandler> = {
    ...options.handlers,
    resetMock() {
      options.reset()
      return json(200, { object: 'reset', seed: options.seed })
    },
    listAccounts: () =>
      json(200, { object: 'list', data: accounts.list().map((a) => presentAccount(a.id)), has_more: false }),
    createAccount({ body }) {
      const input = body as { plan: Plan; email?: string; name?: string; limits?: Limits }
      assertRoom(accounts.size(), LIMITS.accounts, 'accounts')
      const created = accounts.create(input)
      options.provisionAccount(created)
      return json(201, presentAccount(created.id))
    },
    getAccount: ({ params }) => json(200, presentAccount(params.account_id ?? '')),
    updateAccount({ params, body }) {
      account(params.account_id ?? '')
      accounts.update(params.account_id ?? '', body as { plan?: Plan; limits?: Limits | null })
      return json(200, presentAccount(params.account_id ?? ''))
    },
    getRateLimitUsage({ params }) {
      const found = account(params.account_id ?? '')
      const windows = rateLimiter.peek(found.id, accounts.windows(found), clock.now())
      return json(200, {
        object: 'rate_limit_usage',
        account_id: found.id,
        windows: windows.map((w) => ({
          policy: w.policy,
          limit: w.quota,
          used: w.quota - w.remaining,
          remaining: w.remaining,
          reset_seconds: w.reset,
        })),
      })
    },
    createKey({ params, body }) {
      const found = account(params.account_id ?? '')
      assertRoom(keys.list(found.id).length, LIMITS.keysPerAccount, 'keys per account', 'account_id')
      const result = keys.create(found.id, body as KeyInput)
      if (!result.ok)
        throw errors.validationFailed([{ param: result.param, code: result.code, message: result.message }])
      return json(201, { ...result.key, value: result.value })
    },
    listKeys({ params }) {
      const found = account(params.account_id ?? '')
      return json(200, { object: 'list', data: keys.list(found.id), has_more: false })
    },
    deleteAccount({ params }) {
      const found = account(params.account_id ?? '')
      if (found.id === options.demoAccountId())
        throw errors.conflict(
          'demo_account_protected',
          'The seeded demo account cannot be deleted: the mock restarts from it. POST /_mock/reset brings back its seeded state.',
          'account_id',
        )
      keys.removeAccount(found.id)
      rateLimiter.forget(found.id)
      options.deleteAccountData(found.id)
      accounts.remove(found.id)
      return json(200, { id: found.id, object: 'user', deleted: true })
    },
    revokeKey({ params }) {
      const revoked = keys.revoke(params.key_id ?? '')
      if (!revoked) throw errors.resourceNotFound('key', params.key_id ?? '', 'key_id')
      return json(200, revoked)
    },
    getClock: () => json(200, clockBody()),
    advanceClock({ body }) {
      const { seconds } = body as { seconds: number }
      const room = clock.maxAdvanceSeconds()
      if (seconds > room)
        throw errors.validationFailed([
          {
            param: 'seconds',
            code: 'maximum',
            message: `The clock can be moved up to 9998-12-31T23:59:59Z, that is at most ${room} seconds from ${clock.iso()}.`,
          },
        ])
      clock.advance(seconds)
      return json(200, clockBody())
    },
    listJournal({ query }) {
      const page = journal.list(query as Parameters<Journal['list']>[0])
      return json(200, { object: 'list', ...page })
    },
  }

  function clockBody() {
    return { object: 'clock', now: clock.iso(), offset_seconds: clock.offsetSeconds() }
  }

  /**
   * A page of another site changing the mock through the user's browser (CSRF). Reads stay open: a
   * navigation to the dashboard is welcome, and without CORS headers no other site can read a response.
   * `Sec-Fetch-Site: same-origin` is the browser's word that the page is of the origin it addressed: this mock
   * under any of its names, or a dev server proxying to it (whose `Host` the Host check judged), so `Origin`
   * is compared with the mock's own only when a browser does not say (or a client that is no browser).
   */
  function crossSite(request: EngineRequest, url: URL): string | undefined {
    if (['GET', 'HEAD', 'OPTIONS'].includes(request.method.toUpperCase())) return undefined
    const site = request.headers['sec-fetch-site']
    if (site === 'cross-site' || site === 'same-site')
      return `${site}, Origin ${request.headers.origin ?? 'none'}`
    if (site === 'same-origin') return undefined
    const origin = request.headers.origin
    if (origin === undefined) return undefined
    const own = request.baseUrl ? new URL(request.baseUrl).origin : url.origin
    return origin === own ? undefined : origin
  }

  // Compared as SHA-256 digests: equal lengths, so the comparison reveals neither content nor length.
  const adminTokenHash = options.adminToken === undefined ? undefined : sha256Hex(options.adminToken)

  const hostAllowed = options.allowedHosts === undefined ? undefined : createHostCheck(options.allowedHosts)

  /** 403 for a `Host` that does not name this mock: a rebound name must not reach the control plane. */
  function misdirected(request: EngineRequest): ApiError | undefined {
    const host = request.headers.host
    if (!hostAllowed || hostAllowed(host)) return undefined
    const shown = (host ?? '').replace(/[^\x21-\x7e]/g, '?').slice(0, 100)
    const name = shown.replace(/:\d*$/, '')
    return new ApiError(
      403,
      'permission_error',
      'host_not_allowed',
      `The control plane answers only requests addressed to this mock (localhost, an IP address, --host or --allowed-hosts), not Host '${shown}' (a guard against DNS rebinding). If '${name}' is yours, start the mock with --allowed-hosts ${name}.`,
    )
  }

  /**
   * Who may use the control plane: the right `Host` always; no other site's page for changes; then the
   * admin token when one is set (except for pages: they hold no secret, and the dashboard asks for the
   * token itself), else a loopback client.
   */
  function authorize(request: EngineRequest, url: URL, page: boolean): ApiError | undefined {
    const wrongHost = misdirected(request)
    if (wrongHost) return wrongHost
    const foreign = crossSite(request, url)
    if (foreign !== undefined)
      return new ApiError(
        403,
        'permission_error',
        'cross_site_request',
        `The control plane refuses changes from other sites' pages (${foreign}): open the dashboard at this mock's own address (/_mock/dashboard), or behind a dev server that proxies /_mock to the mock (see the README, "Behind a dev-server proxy").`,
      )
    if (adminTokenHash && page) return undefined
    if (adminTokenHash) {
      const header = request.headers.authorization ?? ''
      const token = /^bearer\s+(.+)$/i.exec(header.trim())?.[1] ?? ''
      if (!constantTimeEqual(sha256Hex(token), adminTokenHash))
        return new ApiError(
          401,
          'authentication_error',
          'invalid_admin_token',
          'The control plane needs the admin token: Authorization: Bearer <admin token>.',
          {},
          { 'www-authenticate': 'Bearer realm="mock-control"' },
        )
      return undefined
    }
    if (!isLoopback(request.clientIp))
      return new ApiError(
        403,
        'permission_error',
        'loopback_only',
        'The control plane answers only loopback clients unless the mock was started with --admin-token.',
      )
    return undefined
  }

  return function handleControl(request: EngineRequest, url: URL, requestId: string): EngineResponse {
    try {
      const path = url.pathname.slice('/_mock'.length) || '/'
      const method = request.method.toUpperCase()
      const page = method === 'GET' || method === 'HEAD' ? options.pages?.[path] : undefined
      const denied = authorize(request, url, page !== undefined)
      if (denied) throw denied
      // Refused whatever the route takes: a 413 must mean that nothing happened.
      const tooLarge = request.bodyTooLarge ? errors.payloadTooLarge(MAX_BODY_BYTES) : undefined
      if (page) {
        if (tooLarge) throw tooLarge
        return page()
      }
      const route = router.match(request.method, path)
      if (route.kind === 'not-found') throw errors.routeNotFound(request.method, url.pathname)
      if (route.kind === 'method-not-allowed')
        throw errors.methodNotAllowed(request.method.toUpperCase(), route.allow)
      const { operation, params } = route
      const query = validators.query(operation.operationId, operation.parameters, url.searchParams)
      if (!query.ok) throw errors.invalidParameter(query.param, query.message)
      if (tooLarge) throw tooLarge
      let body: unknown
      if (operation.hasBody) {
        if (request.bodyNotUtf8) throw errors.invalidJson('The request body is not valid UTF-8.')
        body = parseJsonBody(request.body, request.headers['content-type'], operation.bodyRequired)
        if (body !== undefined) {
          assertJsonDepth(request.body)
          const fieldErrors = validators.body(operation.operationId, operation.object, body)
          if (fieldErrors.length > 0) throw errors.validationFailed(fieldErrors)
        }
      }
      const handler = handlers[operation.operationId]
      if (!handler) throw errors.routeNotFound(request.method, url.pathname)
      let response: EngineResponse
      try {
        response = handler({ params, query: query.values, body, baseUrl: request.baseUrl })
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        response = json(error.status, error.body(requestId), error.headers)
      }
      return checkResponse(operation, response)
    } catch (error) {
      if (error instanceof ApiError) return json(error.status, error.body(requestId), error.headers)
      throw error
    }
  }

  /** With `checkResponses`, an operation's answer that its contract does not allow becomes a 500 naming the drift. */
  function checkResponse(operation: Operation, response: EngineResponse): EngineResponse {
    const drift = contractDrift(validators, options, operation, response)
    if (drift !== undefined) throw errors.internal(drift)
    return response
  }
}

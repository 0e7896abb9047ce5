import { type Account, type AccountStore, createAccountStore } from './accounts.ts'
import { ApiError, errors } from './api-error.ts'
import { authenticate } from './auth.ts'
import { type Clock, createClock, toTimestamp } from './clock.ts'
import type { OpenApiDocument } from './contract/document.ts'
import { createRouter, type Operation } from './contract/router.ts'
import { createValidators } from './contract/validators.ts'
import { corsHeaders, preflightHeaders } from './cors.ts'
import { IDEMPOTENCY_KEY_MAX_LENGTH } from './idempotency.ts'
import { createJournal } from './journal.ts'
import { assertJsonDepth } from './json-depth.ts'
import { createKeyStore, type KeyStore, type StoredKey } from './key-store.ts'
import { missingScope } from './permissions.ts'
import { newId } from './random.ts'
import { createRateLimiter, rateLimitHeaders } from './rate-limiter.ts'
import { canonicalJson, MAX_BODY_BYTES, parseJsonBody } from './request-body.ts'
import type { AccountData } from './resources/account-data.ts'
import { redactDeep, redactSecrets } from './secrets.ts'
import type { EngineRequest, EngineResponse, Handlers, OperationContext, OperationResult } from './types.ts'

export interface EngineCoreOptions {
  /** The v1 contract (the generated JSON document). */
  document: OpenApiDocument
  /** Behaviour of every operation, by operationId. */
  handlers: Handlers
  /** Account data for an account, created on first use. */
  dataFor: (account: Account) => AccountData
  clock?: Clock
  /** Check every v1 response against the contract; a drift becomes a 500 naming it. */
  checkResponses?: boolean
  /** Named faults for the mutation harness. Never set outside tests. */
  faults?: Iterable<string>
  /** Called with every contract drift found by `checkResponses`. */
  onContractViolation?: (message: string) => void
  /** Answers requests under `/_mock/` (the control plane), when given. */
  control?: (request: EngineRequest, url: URL, requestId: string) => Promise<EngineResponse> | EngineResponse
}

const API_PREFIX = '/v1'
/** Base URL assumed for `Location` when the transport does not say (the mock's default address). */
const DEFAULT_BASE_URL = 'http://127.0.0.1:4010/v1'

function json(status: number, body: unknown, headers: Record<string, string> = {}): EngineResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body }
}

/** The engine's core: routing, authentication, rate limits, permissions, validation, and the v1 pipeline. */
export function createEngineCore(options: EngineCoreOptions) {
  const clock = options.clock ?? createClock()
  const faults: ReadonlySet<string> = new Set(options.faults ?? [])
  const router = createRouter(options.document)
  const validators = createValidators(options.document)
  const accounts: AccountStore = createAccountStore(clock)
  const keys: KeyStore = createKeyStore(clock)
  const rateLimiter = createRateLimiter({
    extraAdmitted: faults.has('rate-limit-off-by-one') ? 1 : 0,
    countRefused: faults.has('rate-limit-counts-429'),
  })
  const journal = createJournal()

  function finish(
    request: EngineRequest,
    url: URL,
    started: number,
    requestId: string,
    response: EngineResponse,
    meta: { operation?: Operation; key?: StoredKey },
  ): EngineResponse {
    if (!faults.has('request-id-missing')) response.headers['request-id'] = requestId
    if (faults.has('wrong-content-type') && response.body !== undefined)
      response.headers['content-type'] = 'text/plain; charset=utf-8'
    // CORS for the API only: the control plane is never meant to be driven by another site's page.
    if (url.pathname.startsWith(API_PREFIX))
      Object.assign(response.headers, corsHeaders(request.headers.origin))
    // A key sent in the path or as a parameter name is never echoed by an error or kept in the journal.
    if (response.status >= 400 && response.body && typeof response.body === 'object')
      response.body = redactDeep(response.body)
    journal.record({
      id: requestId,
      object: 'journal_entry',
      at: clock.iso(),
      method: request.method.toUpperCase(),
      path: redactSecrets(url.pathname),
      operation_id: meta.operation?.operationId ?? null,
      status: response.status,
      account_id: meta.key?.record.account_id ?? null,
      key_id: meta.key?.record.id ?? null,
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
    })
    return response
  }

  function errorResponse(
    error: ApiError,
    requestId: string,
    headers: Record<string, string> = {},
  ): EngineResponse {
    let status = error.status
    // A v1 401 is exactly the spec's body (type, code, message): its request id is in the header only.
    const body = error.body(error.status === 401 ? undefined : requestId)
    if (error.status === 401 && faults.has('unauthenticated-404')) status = 404
    if (error.status === 401 && faults.has('wrong-401-code')) body.error.code = 'invalid_key'
    if (error.code === 'insufficient_permissions' && faults.has('403-without-required-permission'))
      delete body.error.required_permission
    const extra = { ...error.headers }
    if (faults.has('retry-after-missing')) delete extra['retry-after']
    if (faults.has('www-authenticate-missing')) delete extra['www-authenticate']
    if (error.status === 401 && faults.has('401-has-ratelimit-headers')) extra.ratelimit = '"hourly";r=0;t=0'
    if (faults.has('error-request-id-mismatch') && body.error.request_id)
      body.error.request_id = 'req_0mismatch'
    if (error.status === 422 && faults.has('422-without-errors')) delete body.error.errors
    return json(status, body, { ...headers, ...extra })
  }

  function checkResponse(operation: Operation, response: EngineResponse): EngineResponse {
    if (!options.checkResponses) return response
    const problems = validators.response(
      operation.operationId,
      operation.object,
      response.status,
      response.body,
    )
    if (problems.length === 0) return response
    const message = `Contract drift in ${operation.operationId} (${response.status}): ${problems.slice(0, 5).join('; ')}`
    options.onContractViolation?.(message)
    return json(500, errors.internal(message).body())
  }

  /** Steps after authentication: synchronous, so concurrent requests cannot interleave within one. */
  function handleAuthenticated(
    request: EngineRequest,
    url: URL,
    apiPath: string,
    stored: StoredKey,
    requestId: string,
  ): { response: EngineResponse; operation?: Operation } {
    const key = stored.record
    const account = accounts.get(key.account_id)
    if (!account)
      return { response: errorResponse(errors.unauthenticated('Invalid API key provided.'), requestId) }
    const now = clock.now()
    key.last_used_at = toTimestamp(now)

    let windows = accounts.windows(account)
    if (faults.has('burst-limit-ignored'))
      windows = windows.map((w) => (w.policy === 'burst' ? { ...w, quota: w.quota * 1000 } : w))
    const decision = rateLimiter.check(account.id, windows, now)
    const limitHeaders = rateLimitHeaders(decision.windows, now)
    if (faults.has('ratelimit-remaining-off-by-one'))
      limitHeaders.ratelimit =
        limitHeaders.ratelimit?.replace(/r=(\d+)/g, (_, r) => `r=${Number(r) + 1}`) ?? ''
    if (faults.has('x-ratelimit-headers-missing')) delete limitHeaders['x-ratelimit-remaining']
    if (faults.has('malformed-ratelimit-header'))
      limitHeaders.ratelimit = limitHeaders.ratelimit?.replace(/;/g, ',') ?? ''
    if (!decision.admitted)
      return {
        response: errorResponse(
          errors.rateLimited(
            faults.has('429-wrong-policy')
              ? decision.policy === 'burst'
                ? 'hourly'
                : 'burst'
              : decision.policy,
            faults.has('retry-after-too-short') ? Math.max(1, decision.retryAfter - 1) : decision.retryAfter,
          ),
          requestId,
          limitHeaders,
        ),
      }

    const route = router.match(request.method, apiPath)
    if (route.kind === 'not-found')
      return {
        response: errorResponse(errors.routeNotFound(request.method, url.pathname), requestId, limitHeaders),
      }
    if (route.kind === 'method-not-allowed')
      return {
        response: errorResponse(
          errors.methodNotAllowed(request.method.toUpperCase(), route.allow),
          requestId,
          limitHeaders,
        ),
      }
    const { operation } = route
    try {
      const result = runOperation(request, url, operation, route.params, stored, account)
      const response = json(result.status, result.body, { ...limitHeaders, ...result.headers })
      return { response: checkResponse(operation, response), operation }
    } catch (error) {
      if (error instanceof ApiError) {
        return {
          response: checkResponse(operation, errorResponse(error, requestId, limitHeaders)),
          operation,
        }
      }
      throw error
    }
  }

  function runOperation(
    request: EngineRequest,
    url: URL,
    operation: Operation,
    params: Record<string, string>,
    stored: StoredKey,
    account: Account,
  ): OperationResult {
    const key = stored.record
    // 403: restrictions, then scopes.
    if (!keys.ipAllowed(key, request.clientIp))
      throw errors.keyRestricted('This API key may not be used from this IP address.')
    const allowedOrigins = key.restrictions.allowed_origins
    if (
      allowedOrigins.length > 0 &&
      !allowedOrigins.includes(request.headers.origin ?? '') &&
      !faults.has('origin-restriction-ignored')
    )
      throw errors.keyRestricted('This API key may not be used from this origin.')
    const skipPermission = faults.has('publishable-can-write') && key.type === 'publishable'
    let needed = operation.permissions
    if (faults.has('remove-member-needs-one-scope')) needed = needed.slice(0, 1)
    let missing = skipPermission ? undefined : missingScope(key.permissions, needed)
    if (faults.has('implied-scope-ignored'))
      missing = needed.find((scope) => !key.permissions.includes(scope))
    if (missing && faults.has('404-before-403'))
      options.handlers[operation.operationId]?.load?.({
        params,
        data: options.dataFor(account),
      } as OperationContext)
    if (missing) throw errors.missingPermission(missing)

    // 400: query, headers, body syntax.
    if (faults.has('unknown-query-accepted'))
      for (const name of [...url.searchParams.keys()])
        if (!operation.parameters.some((p) => p.name === name)) url.searchParams.delete(name)
    if (faults.has('limit-unbounded') && Number(url.searchParams.get('limit')) > 100)
      url.searchParams.set('limit', '100')
    const query = validators.query(operation.operationId, operation.parameters, url.searchParams)
    if (!query.ok) throw errors.invalidParameter(query.param, query.message)
    if (
      query.values.starting_after !== undefined &&
      query.values.ending_before !== undefined &&
      !faults.has('cursor-conflict-accepted')
    )
      throw errors.parameterConflict(
        'ending_before',
        'starting_after and ending_before cannot be used together.',
      )
    const idempotencyKey = request.headers['idempotency-key']
    if (idempotencyKey !== undefined && operation.method === 'post') {
      if (idempotencyKey.length === 0 || idempotencyKey.length > IDEMPOTENCY_KEY_MAX_LENGTH)
        throw errors.invalidParameter(
          'Idempotency-Key',
          `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters long.`,
        )
    }
    if (request.bodyTooLarge && operation.hasBody) throw errors.payloadTooLarge(MAX_BODY_BYTES)
    const body = operation.hasBody
      ? parseJsonBody(
          request.body,
          request.headers['content-type'],
          operation.object.requestBody?.required === true,
          faults,
        )
      : undefined
    if (body !== undefined) assertJsonDepth(request.body)

    const data = options.dataFor(account)
    const fingerprint =
      idempotencyKey !== undefined ? `${operation.operationId}\u0000${canonicalJson(body)}` : ''
    const now = clock.now()
    if (idempotencyKey !== undefined && operation.method === 'post') {
      const previous = data.idempotency.lookup(idempotencyKey, fingerprint, now)
      if (previous.kind === 'replay' && !faults.has('idempotency-replay-ignored'))
        return {
          ...previous.result,
          headers: faults.has('idempotent-replayed-missing')
            ? previous.result.headers
            : { ...previous.result.headers, 'idempotent-replayed': 'true' },
        }
    }

    const handler = options.handlers[operation.operationId]
    if (!handler) throw errors.internal(`No behaviour is defined for ${operation.operationId}.`)
    const baseUrl =
      request.baseUrl ?? (/^https?:\/\//.test(request.url) ? `${url.origin}${API_PREFIX}` : DEFAULT_BASE_URL)
    const ctx: OperationContext = {
      account,
      key,
      data,
      params,
      query: query.values,
      body,
      clock,
      faults,
      baseUrl,
    }
    const resource = handler.load?.(ctx)

    // 422: the body against the contract.
    if (operation.hasBody && body !== undefined) {
      let fieldErrors = validators.body(operation.operationId, operation.object, body)
      if (faults.has('unknown-field-accepted'))
        fieldErrors = fieldErrors.filter((e) => e.code !== 'unknown_field')
      if (faults.has('enum-unchecked')) fieldErrors = fieldErrors.filter((e) => e.code !== 'enum')
      if (faults.has('range-unchecked'))
        fieldErrors = fieldErrors.filter((e) => e.code !== 'minimum' && e.code !== 'maximum')
      if (fieldErrors.length > 0) throw errors.validationFailed(fieldErrors)
    }
    // 409: a reused idempotency key with another request.
    if (idempotencyKey !== undefined && operation.method === 'post') {
      if (
        data.idempotency.lookup(idempotencyKey, fingerprint, now).kind === 'conflict' &&
        !faults.has('idempotency-conflict-ignored')
      )
        throw errors.conflict(
          'idempotency_key_reused',
          'This Idempotency-Key was already used with a different request.',
          'Idempotency-Key',
        )
    }
    const result = handler.run(ctx, resource)
    if (idempotencyKey !== undefined && operation.method === 'post' && result.status < 300)
      data.idempotency.save(idempotencyKey, fingerprint, structuredClone(result), now)
    return result
  }

  async function handle(request: EngineRequest): Promise<EngineResponse> {
    const started = performance.now()
    const requestId = newId('req', 20)
    let url: URL
    try {
      url = new URL(request.url, 'http://mock.invalid')
    } catch {
      return finish(
        request,
        new URL('http://mock.invalid/'),
        started,
        requestId,
        errorResponse(errors.invalidParameter('url', 'The request URL is malformed.'), requestId),
        {},
      )
    }
    try {
      const path = url.pathname
      if (path === '/_mock' || path.startsWith('/_mock/')) {
        if (!options.control)
          return finish(
            request,
            url,
            started,
            requestId,
            errorResponse(errors.routeNotFound(request.method, path), requestId),
            {},
          )
        return finish(request, url, started, requestId, await options.control(request, url, requestId), {})
      }
      if (path !== API_PREFIX && !path.startsWith(`${API_PREFIX}/`))
        return finish(
          request,
          url,
          started,
          requestId,
          errorResponse(errors.routeNotFound(request.method, path), requestId),
          {},
        )
      const apiPath = path.slice(API_PREFIX.length) || '/'

      if (request.method.toUpperCase() === 'OPTIONS') {
        const route = router.match('OPTIONS', apiPath)
        const allow = route.kind === 'method-not-allowed' ? route.allow.join(', ') : 'OPTIONS'
        if (route.kind === 'not-found')
          return finish(
            request,
            url,
            started,
            requestId,
            errorResponse(errors.routeNotFound('OPTIONS', path), requestId),
            {},
          )
        return finish(
          request,
          url,
          started,
          requestId,
          {
            status: 204,
            headers: { allow, ...preflightHeaders(request.headers.origin, allow) },
            body: undefined,
          },
          {},
        )
      }

      const auth = await authenticate(request.headers.authorization, url.searchParams, {
        keys,
        clock,
        faults,
      })
      if (!auth.ok)
        return finish(request, url, started, requestId, errorResponse(auth.error, requestId), {
          key: auth.key,
        })
      const { response, operation } = handleAuthenticated(request, url, apiPath, auth.key, requestId)
      return finish(request, url, started, requestId, response, { operation, key: auth.key })
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      return finish(
        request,
        url,
        started,
        requestId,
        json(500, errors.internal(`Internal error: ${message}`).body(requestId)),
        {},
      )
    }
  }

  return { handle, clock, accounts, keys, rateLimiter, journal, router, validators, faults }
}

export type EngineCore = ReturnType<typeof createEngineCore>

import type { Account, AccountStore } from './accounts.ts'
import { ApiError, errors } from './api-error.ts'
import { authenticate } from './auth.ts'
import type { Clock } from './clock.ts'
import { contractDrift } from './contract/contract-drift.ts'
import type { OpenApiDocument } from './contract/document.ts'
import { createRouter, type Operation } from './contract/router.ts'
import { createValidators } from './contract/validators.ts'
import { corsHeaders, preflightHeaders } from './cors.ts'
import { errorResponse, json } from './error-response.ts'
import type { Journal } from './journal.ts'
import type { KeyStore, StoredKey } from './key-store.ts'
import { newId } from './random.ts'
import { type RateLimiter, rateLimitHeaders } from './rate-limiter.ts'
import type { AccountData } from './resources/account-data.ts'
import { createOperationRunner } from './run-operation.ts'
import type { InterceptInput, Interception, JournalScenario } from './scenarios/scenario-interceptor.ts'
import { redactDeep, redactSecrets } from './secrets.ts'
import type { EngineRequest, EngineResponse, Handlers } from './types.ts'

export interface EngineCoreOptions {
  /** The v1 contract (the generated JSON document). */
  document: OpenApiDocument
  /** Behaviour of every operation, by operationId. */
  handlers: Handlers
  /** Account data for an account, created on first use. */
  dataFor: (account: Account) => AccountData
  clock: Clock
  accounts: AccountStore
  keys: KeyStore
  rateLimiter: RateLimiter
  journal: Journal
  /** Check every v1 response against the contract; a drift becomes a 500 naming it. */
  checkResponses?: boolean
  /** Called with every contract drift found by `checkResponses`. */
  onContractViolation?: (message: string) => void
  /** Answers requests under `/_mock/` (the control plane), when given. */
  control?: (request: EngineRequest, url: URL, requestId: string) => EngineResponse
  /** Scenarios: may answer a routed v1 request in place of its operation, or mark and delay its answer. */
  intercept?: (input: InterceptInput) => Interception | undefined
}

const API_PREFIX = '/v1'

/** What the journal needs to know about a request besides its response. */
interface Handled {
  response: EngineResponse
  operation?: Operation
  key?: StoredKey
  scenario?: JournalScenario
}

/** The engine's core: routing, authentication, rate limits, permissions, validation, and the v1 pipeline. */
export function createEngineCore(options: EngineCoreOptions) {
  const { clock, accounts, keys, rateLimiter, journal } = options
  const router = createRouter(options.document)
  const validators = createValidators(options.document)
  const runOperation = createOperationRunner({
    handlers: options.handlers,
    dataFor: options.dataFor,
    keys,
    validators,
    clock,
  })

  /**
   * Headers every answer gets, key values redacted from errors, and the journal entry (of requests to the API:
   * the control plane and its pages are not journaled, as `mock-control.yaml` says, so that a dashboard that
   * polls does not push the API's requests out of the journal).
   */
  function finish(
    request: EngineRequest,
    url: URL,
    started: number,
    requestId: string,
    handled: Handled,
  ): EngineResponse {
    const { response } = handled
    response.headers['request-id'] = requestId
    // CORS for the API only: the control plane is never meant to be driven by another site's page.
    // Stryker disable next-line ConditionalExpression: CORS headers on the control plane's answers too: not v1's
    if (url.pathname.startsWith(API_PREFIX))
      Object.assign(response.headers, corsHeaders(request.headers.origin))
    // A key sent in the path or as a parameter name is never echoed by an error or kept in the journal.
    if (response.status >= 400 && response.body && typeof response.body === 'object')
      response.body = redactDeep(response.body)
    // Stryker disable all: the journal (the control plane's GET /_mock/requests; test/mock/control-plane.test.ts):
    // not observable through v1
    if (url.pathname === '/_mock' || url.pathname.startsWith('/_mock/')) return response
    journal.record({
      id: requestId,
      object: 'journal_entry',
      at: clock.iso(),
      method: request.method.toUpperCase(),
      path: redactSecrets(url.pathname),
      operation_id: handled.operation?.operationId ?? null,
      status: response.status,
      account_id: handled.key?.record.account_id ?? null,
      key_id: handled.key?.record.id ?? null,
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      scenario: handled.scenario ?? null,
    })
    // Stryker restore all
    return response
  }

  function checkResponse(operation: Operation, response: EngineResponse): EngineResponse {
    const drift = contractDrift(validators, options, operation, response)
    // Stryker disable next-line ConditionalExpression: the mock's check of its own answers, off in the mutation run (contract-drift.ts)
    return drift === undefined ? response : json(500, errors.internal(drift).body())
  }

  /** Steps after authentication: synchronous, so concurrent requests cannot interleave within one. */
  function handleAuthenticated(
    request: EngineRequest,
    url: URL,
    apiPath: string,
    used: StoredKey,
    requestId: string,
  ): Handled {
    const account = accounts.get(used.record.account_id)
    // Stryker disable all: a key whose account is gone: accounts are deleted only through the control plane, with their keys
    if (!account)
      return { response: errorResponse(errors.unauthenticated('Invalid API key provided.'), requestId) }
    // Stryker restore all
    const now = clock.now()
    const stored = keys.touch(used, now)

    const decision = rateLimiter.check(account.id, accounts.windows(account), now)
    const headers = rateLimitHeaders(decision.windows, now)
    if (!decision.admitted)
      return {
        response: errorResponse(errors.rateLimited(decision.policy, decision.retryAfter), requestId, headers),
      }

    const route = router.match(request.method, apiPath)
    if (route.kind === 'not-found')
      return {
        response: errorResponse(errors.routeNotFound(request.method, url.pathname), requestId, headers),
      }
    if (route.kind === 'method-not-allowed')
      return {
        response: errorResponse(
          // Stryker disable next-line MethodExpression: the method shows in the message only (free text)
          errors.methodNotAllowed(request.method.toUpperCase(), route.allow),
          requestId,
          headers,
        ),
      }
    const { operation } = route
    const windows = decision.windows
    // Stryker disable all: scenarios (docs/decisions/012-scenarios.md): turned on through the control plane or Prefer, never
    // by the suite (test/mock/scenario-*.test.ts)
    const intercepted = options.intercept?.({
      request,
      operation,
      key: stored.record,
      requestId,
      windows,
      now,
    })
    const scenario = intercepted?.scenario
    if (intercepted?.answer) return { response: intercepted.answer, operation, scenario }
    const mark = (response: EngineResponse) => (intercepted ? intercepted.mark(response) : response)
    // Stryker restore all
    try {
      const result = runOperation(request, url, operation, route.params, stored, account)
      const response = json(result.status, result.body, { ...headers, ...result.headers })
      return { response: mark(checkResponse(operation, response)), operation, scenario }
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      const response = checkResponse(operation, errorResponse(error, requestId, headers))
      return { response: mark(response), operation, scenario }
    }
  }

  /** Routes a request to the control plane, a preflight answer, or the authenticated v1 pipeline. */
  function dispatch(request: EngineRequest, url: URL, requestId: string): Handled {
    const path = url.pathname
    if (path === '/_mock' || path.startsWith('/_mock/')) {
      // Stryker disable all: an engine without a control plane: createEngine always gives it one
      if (!options.control)
        return { response: errorResponse(errors.routeNotFound(request.method, path), requestId) }
      // Stryker restore all
      return { response: options.control(request, url, requestId) }
    }
    if (path !== API_PREFIX && !path.startsWith(`${API_PREFIX}/`))
      return { response: errorResponse(errors.routeNotFound(request.method, path), requestId) }
    const apiPath = path.slice(API_PREFIX.length) || '/'

    if (request.method.toUpperCase() === 'OPTIONS') {
      const route = router.match('OPTIONS', apiPath)
      if (route.kind === 'not-found')
        return { response: errorResponse(errors.routeNotFound('OPTIONS', path), requestId) }
      const allow = route.kind === 'method-not-allowed' ? route.allow.join(', ') : 'OPTIONS'
      const headers = { allow, ...preflightHeaders(request.headers.origin, allow) }
      return { response: { status: 204, headers, body: undefined } }
    }

    const auth = authenticate(request.headers.authorization, url.searchParams, { keys, clock })
    if (!auth.ok) return { response: errorResponse(auth.error, requestId), key: auth.key }
    return { ...handleAuthenticated(request, url, apiPath, auth.key, requestId), key: auth.key }
  }

  /**
   * The answer to a request whose changes the store could not keep (they were undone): the error, with the
   * headers every answer gets, recorded in the journal as the client saw it.
   */
  // Stryker disable all: a store that could not keep a change (test/stores/redis-store.test.ts); the run's memory store always can
  function refuse(request: EngineRequest, error: ApiError): EngineResponse {
    const started = performance.now()
    const requestId = newId('req', 20)
    let url = new URL('http://mock.invalid/')
    try {
      url = new URL(request.url, url)
    } catch {
      // A malformed URL was answered 400 in the first place; it is journaled at the root.
    }
    return finish(request, url, started, requestId, { response: errorResponse(error, requestId) })
  }
  // Stryker restore all

  /** Answers one request, synchronously: nothing else runs in the engine until it is answered. */
  function handle(request: EngineRequest): EngineResponse {
    const started = performance.now()
    const requestId = newId('req', 20)
    let url: URL
    try {
      url = new URL(request.url, 'http://mock.invalid')
    } catch {
      const response = errorResponse(
        errors.invalidParameter('url', 'The request URL is malformed.'),
        requestId,
      )
      return finish(request, new URL('http://mock.invalid/'), started, requestId, { response })
    }
    try {
      return finish(request, url, started, requestId, dispatch(request, url, requestId))
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      const response = json(500, errors.internal(`Internal error: ${message}`).body(requestId))
      return finish(request, url, started, requestId, { response })
    }
  }

  return { handle, refuse, router, validators }
}

export type EngineCore = ReturnType<typeof createEngineCore>

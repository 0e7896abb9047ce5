import type { Account } from './accounts.ts'
import { errors } from './api-error.ts'
import type { Clock } from './clock.ts'
import type { Operation } from './contract/router.ts'
import type { Validators } from './contract/validators.ts'
import { IDEMPOTENCY_KEY_MAX_LENGTH } from './idempotency.ts'
import { assertJsonDepth } from './json-depth.ts'
import type { KeyStore, StoredKey } from './key-store.ts'
import { missingScope } from './permissions.ts'
import { canonicalJson, MAX_BODY_BYTES, parseJsonBody } from './request-body.ts'
import type { AccountData } from './resources/account-data.ts'
import { sha256Hex } from './secrets.ts'
import type { EngineRequest, Handlers, OperationContext, OperationResult } from './types.ts'

export interface OperationRunnerOptions {
  handlers: Handlers
  dataFor: (account: Account) => AccountData
  keys: KeyStore
  validators: Validators
  clock: Clock
}

/** Base URL assumed for `Location` when the transport does not say (the mock's default address). */
// Stryker disable next-line StringLiteral: only for a caller that passes neither a base URL nor an absolute URL; the HTTP server and the MSW bridge pass one
const DEFAULT_BASE_URL = 'http://127.0.0.1:4010/v1'

/**
 * Runs one routed, admitted operation through the rest of docs/decisions/005-order-of-checks.md: 403 (restrictions,
 * then scopes) -> 400 (query, headers, body syntax, 413, 415) -> 404 resource -> 422 -> 409 -> the
 * handler. Synchronous, so no other request interleaves. Throws `ApiError`s.
 */
export function createOperationRunner({
  handlers,
  dataFor,
  keys,
  validators,
  clock,
}: OperationRunnerOptions) {
  function checkAccess(request: EngineRequest, operation: Operation, stored: StoredKey): void {
    const key = stored.record
    if (!keys.ipAllowed(key, request.clientIp))
      throw errors.keyRestricted('This API key may not be used from this IP address.')
    const allowedOrigins = key.restrictions.allowed_origins
    // Stryker disable next-line StringLiteral: no allowed origin is empty, so any stand-in for a missing Origin is refused alike
    if (allowedOrigins.length > 0 && !allowedOrigins.includes(request.headers.origin ?? ''))
      throw errors.keyRestricted('This API key may not be used from this origin.')
    const missing = missingScope(key.permissions, operation.permissions)
    if (missing) throw errors.missingPermission(missing)
  }

  function parseQuery(url: URL, operation: Operation): Record<string, unknown> {
    const query = validators.query(operation.operationId, operation.parameters, url.searchParams)
    if (!query.ok) throw errors.invalidParameter(query.param, query.message)
    const { starting_after, ending_before } = query.values
    if (starting_after !== undefined && ending_before !== undefined)
      throw errors.parameterConflict(
        'ending_before',
        'starting_after and ending_before cannot be used together.',
      )
    return query.values
  }

  /** The request's `Idempotency-Key` as a SHA-256 digest: the value may be a secret someone pasted. */
  function idempotencyKeyOf(request: EngineRequest, operation: Operation): string | undefined {
    const idempotencyKey = request.headers['idempotency-key']
    if (idempotencyKey === undefined || operation.method !== 'post') return undefined
    if (idempotencyKey.length === 0 || idempotencyKey.length > IDEMPOTENCY_KEY_MAX_LENGTH)
      throw errors.invalidParameter(
        'Idempotency-Key',
        `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters long.`,
      )
    // The contract's pattern, ^[\x21-\x7E]+$: printable ASCII, no spaces (a UUID fits).
    if (!/^[\x21-\x7e]+$/.test(idempotencyKey))
      throw errors.invalidParameter(
        'Idempotency-Key',
        // Stryker disable next-line StringLiteral: message wording (free text)
        'Idempotency-Key may hold only printable ASCII characters without spaces (a UUID v4 is recommended).',
      )
    return sha256Hex(idempotencyKey)
  }

  function parseBody(request: EngineRequest, operation: Operation): unknown {
    // Refused whether or not the operation takes a body: a 413 must mean that nothing happened.
    if (request.bodyTooLarge) throw errors.payloadTooLarge(MAX_BODY_BYTES)
    if (!operation.hasBody) return undefined
    // Stryker disable next-line StringLiteral: message wording (free text)
    if (request.bodyNotUtf8) throw errors.invalidJson('The request body is not valid UTF-8.')
    const required = operation.bodyRequired
    const body = parseJsonBody(request.body, request.headers['content-type'], required)
    if (body !== undefined) assertJsonDepth(request.body)
    return body
  }

  return function runOperation(
    request: EngineRequest,
    url: URL,
    operation: Operation,
    params: Record<string, string>,
    stored: StoredKey,
    account: Account,
  ): OperationResult {
    checkAccess(request, operation, stored)
    const query = parseQuery(url, operation)
    const idempotencyKey = idempotencyKeyOf(request, operation)
    const body = parseBody(request, operation)

    const data = dataFor(account)
    const now = clock.now()
    const fingerprint =
      // Stryker disable next-line ConditionalExpression,StringLiteral: a shortcut: without a key the fingerprint is never read
      idempotencyKey === undefined ? '' : `${operation.operationId}\u0000${canonicalJson(body)}`
    if (idempotencyKey !== undefined) {
      const previous = data.idempotency.lookup(idempotencyKey, fingerprint, now)
      if (previous.kind === 'replay')
        return {
          ...previous.result,
          headers: { ...previous.result.headers, 'idempotent-replayed': 'true' },
        }
    }

    const handler = handlers[operation.operationId]
    // Stryker disable next-line all: every operation of the contract has its handler, so this guard never fires
    if (!handler) throw errors.internal(`No behaviour is defined for ${operation.operationId}.`)
    // Stryker disable all: as DEFAULT_BASE_URL: the HTTP server and the MSW bridge pass a base URL
    const baseUrl =
      request.baseUrl ?? (/^https?:\/\//.test(request.url) ? `${url.origin}/v1` : DEFAULT_BASE_URL)
    // Stryker restore all
    const ctx: OperationContext = {
      account,
      key: stored.record,
      data,
      params,
      query,
      body,
      clock,
      baseUrl,
    }
    // 404: the addressed resource, before the body is judged.
    const resource = handler.load?.(ctx)
    // 422: the body against the contract.
    // Stryker disable next-line ConditionalExpression: a shortcut: an operation without a body has no schema to break
    if (body !== undefined) {
      const fieldErrors = validators.body(operation.operationId, operation.object, body)
      if (fieldErrors.length > 0) throw errors.validationFailed(fieldErrors)
    }
    // 409: a reused idempotency key with another request.
    if (
      idempotencyKey !== undefined &&
      data.idempotency.lookup(idempotencyKey, fingerprint, now).kind === 'conflict'
    )
      throw errors.conflict(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request.',
        // Stryker disable next-line StringLiteral: an empty param is left out (errors.conflict), and error.param is optional (docs/decisions/011-allowed-forms.md)
        'Idempotency-Key',
      )
    const result = handler.run(ctx, resource)
    // Stryker disable next-line ConditionalExpression,EqualityOperator: handlers return successes only (errors are thrown), all under 300
    if (idempotencyKey !== undefined && result.status < 300)
      data.idempotency.save(idempotencyKey, fingerprint, structuredClone(result), now)
    return result
  }
}

import type { Account, AccountStore } from '../accounts.ts'
import type { Clock } from '../clock.ts'
import type { DriftCheck } from '../contract/contract-drift.ts'
import type { Router } from '../contract/router.ts'
import type { Validators } from '../contract/validators.ts'
import { type Journal, journalEntry } from '../journal.ts'
import type { KeyStore } from '../keys/key-store.ts'
import { compose } from '../pipeline/compose.ts'
import { validateBodyStep } from '../pipeline/contract-steps.ts'
import { checkAnswerStep } from '../pipeline/drift-step.ts'
import type { Api } from '../pipeline/handle-request.ts'
import { readBodyStep, readQueryStep } from '../pipeline/input-steps.ts'
import type { RequestContext } from '../pipeline/request-context.ts'
import { routeStep } from '../pipeline/route-step.ts'
import type { RateLimiter, WindowState } from '../rate-limiter.ts'
import type { AccountData } from '../resources/account-data.ts'
import type { Handlers } from '../resources/operation-handler.ts'
import type { InterceptInput, Interception } from '../scenarios/scenario-interceptor.ts'
import { admitStep, authenticateStep, authorizeStep, preflightStep } from './access-steps.ts'
import { corsHeaders } from './cors.ts'
import { conflictStep, idempotencyKeyStep, replayStep } from './idempotency-steps.ts'
import { operationSteps } from './operation-steps.ts'
import { scenarioStep } from './scenario-step.ts'
import type { V1Context } from './v1-context.ts'

export interface V1ApiOptions extends DriftCheck {
  router: Router
  validators: Validators
  /** Behaviour of every operation, by operationId. */
  handlers: Handlers
  /** Account data for an account, created on first use. */
  dataFor: (account: Account) => AccountData
  clock: Clock
  accounts: AccountStore
  keys: KeyStore
  rateLimiter: RateLimiter
  journal: Journal
  /** Scenarios: may answer a routed request in place of its operation, or mark and delay its answer. */
  intercept: (input: InterceptInput) => Interception | undefined
}

const NO_WINDOWS: readonly WindowState[] = []

/** A request's v1 context, every field a step may set there from the start (one shape for all of them). */
function v1Context(base: RequestContext): V1Context {
  return {
    request: base.request,
    url: base.url,
    requestId: base.requestId,
    path: base.path,
    headers: base.headers,
    operation: undefined,
    params: base.params,
    query: base.query,
    body: undefined,
    key: undefined,
    account: undefined,
    now: 0,
    windows: NO_WINDOWS,
    scenario: undefined,
    data: undefined,
    idempotency: undefined,
    handlerContext: undefined,
    resource: undefined,
    result: undefined,
  }
}

/**
 * The v1 API (`openapi/v1.yaml`) as a pipeline, in the order of docs/decisions/005-order-of-checks.md:
 * 401 -> 429 -> 404/405 -> (scenarios) -> 403 -> 400 query and headers -> 413 -> 415 -> 400 body -> 404 resource
 * -> 422 -> 409 -> the operation. Scenarios come after the route so that they can name an operation, and
 * before the operation's checks so that an injected answer changes nothing. Every answer from the 403 on is
 * checked against the contract (with `checkResponses`), carries CORS headers for its `Origin`, and is journaled.
 */
export function createV1Api(options: V1ApiOptions): Api<V1Context> {
  const { router, validators, clock, keys, accounts, journal } = options
  const operation = operationSteps(options.handlers, clock)
  return {
    prefix: '/v1',
    context: v1Context,
    handle: compose<V1Context>([
      preflightStep(router),
      authenticateStep({ keys, clock, accounts }),
      admitStep({ rateLimiter: options.rateLimiter, accounts }),
      routeStep(router),
      scenarioStep(options.intercept),
      checkAnswerStep(validators, options),
      authorizeStep(keys),
      readQueryStep(validators),
      idempotencyKeyStep,
      readBodyStep,
      replayStep({ dataFor: options.dataFor, clock }),
      operation.load,
      validateBodyStep(validators),
      conflictStep,
      operation.run,
    ]),
    finish(ctx, response, startedAt) {
      const origin = ctx.request.headers.origin
      if (origin) Object.assign(response.headers, corsHeaders(origin))
      journal.record(journalEntry(ctx, response, startedAt, clock))
    },
  }
}

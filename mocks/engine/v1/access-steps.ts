import type { AccountStore } from '../accounts.ts'
import { errors } from '../api-error.ts'
import { authenticate } from '../auth.ts'
import type { Clock } from '../clock.ts'
import type { Router } from '../contract/router.ts'
import type { KeyStore } from '../keys/key-store.ts'
import { missingScope } from '../permissions.ts'
import type { Step } from '../pipeline/compose.ts'
import { methodOf, routed } from '../pipeline/request-context.ts'
import { type RateLimiter, rateLimitHeaders } from '../rate-limiter.ts'
import { preflightHeaders } from './cors.ts'
import { caller, type V1Context } from './v1-context.ts'

/** A CORS preflight (`OPTIONS`): 204 naming the path's methods, unauthenticated and not counted. */
export function preflightStep(router: Router): Step<V1Context> {
  return (ctx, next) => {
    if (methodOf(ctx) !== 'OPTIONS') return next()
    const route = router.match('OPTIONS', ctx.path)
    if (route.kind === 'not-found') throw errors.routeNotFound('OPTIONS', ctx.url.pathname)
    const allow = route.kind === 'method-not-allowed' ? route.allow.join(', ') : 'OPTIONS'
    return {
      status: 204,
      headers: { allow, ...preflightHeaders(ctx.request.headers.origin, allow) },
      body: undefined,
    }
  }
}

/** 401 for a missing, malformed, unknown, revoked or expired key; the key is noted as used. */
export function authenticateStep(deps: {
  keys: KeyStore
  clock: Clock
  accounts: AccountStore
}): Step<V1Context> {
  const { keys, clock, accounts } = deps
  return (ctx, next) => {
    const auth = authenticate(ctx.request.headers.authorization, ctx.url.searchParams, { keys, clock })
    ctx.key = auth.key
    if (!auth.ok) throw auth.error
    const account = accounts.get(auth.key.record.account_id)
    // A key whose account is gone (accounts are deleted through the control plane, with their keys).
    if (!account) throw errors.unauthenticated('Invalid API key provided.')
    ctx.now = clock.now()
    ctx.key = keys.touch(auth.key, ctx.now)
    ctx.account = account
    return next()
  }
}

/** 429 when a window of the account is full; otherwise the request is counted, and every answer says how much is left. */
export function admitStep(deps: { rateLimiter: RateLimiter; accounts: AccountStore }): Step<V1Context> {
  return (ctx, next) => {
    const { account } = caller(ctx)
    const decision = deps.rateLimiter.check(account.id, deps.accounts.windows(account), ctx.now)
    ctx.windows = decision.windows
    ctx.headers = rateLimitHeaders(decision.windows, ctx.now)
    if (!decision.admitted) throw errors.rateLimited(decision.policy, decision.retryAfter)
    return next()
  }
}

/** 403 for a key restricted to other addresses or origins, then for a key without the operation's scopes. */
export function authorizeStep(keys: KeyStore): Step<V1Context> {
  return (ctx, next) => {
    const key = caller(ctx).key.record
    if (!keys.ipAllowed(key, ctx.request.clientIp))
      throw errors.keyRestricted('This API key may not be used from this IP address.')
    const allowedOrigins = key.restrictions.allowed_origins
    if (allowedOrigins.length > 0 && !allowedOrigins.includes(ctx.request.headers.origin ?? ''))
      throw errors.keyRestricted('This API key may not be used from this origin.')
    const missing = missingScope(key.permissions, routed(ctx).operation.permissions)
    if (missing) throw errors.missingPermission(missing)
    return next()
  }
}

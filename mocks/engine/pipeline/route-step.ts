import { errors } from '../api-error.ts'
import type { Router } from '../contract/router.ts'
import type { Step } from './compose.ts'
import { methodOf } from './request-context.ts'

/** 404 for an unknown path, 405 (with `Allow`) for an undocumented method; otherwise the operation is known. */
export function routeStep(router: Router): Step {
  return (ctx, next) => {
    const route = router.match(ctx.request.method, ctx.path)
    if (route.kind === 'not-found') throw errors.routeNotFound(ctx.request.method, ctx.url.pathname)
    if (route.kind === 'method-not-allowed') throw errors.methodNotAllowed(methodOf(ctx), route.allow)
    ctx.operation = route.operation
    ctx.params = route.params
    return next()
  }
}

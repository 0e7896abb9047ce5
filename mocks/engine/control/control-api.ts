import { errors } from '../api-error.ts'
import type { DriftCheck } from '../contract/contract-drift.ts'
import type { Router } from '../contract/router.ts'
import type { Validators } from '../contract/validators.ts'
import { compose, type Step } from '../pipeline/compose.ts'
import { validateBodyStep } from '../pipeline/contract-steps.ts'
import { checkAnswerStep } from '../pipeline/drift-step.ts'
import type { Api } from '../pipeline/handle-request.ts'
import { readBodyStep, readQueryStep } from '../pipeline/input-steps.ts'
import { methodOf, type RequestContext, routed } from '../pipeline/request-context.ts'
import { routeStep } from '../pipeline/route-step.ts'
import { MAX_BODY_BYTES } from '../request-body.ts'
import type { EngineResponse } from '../types.ts'
import { authorizeClientStep, isLoopback } from './authorize-client.ts'
import type { ControlHandlers } from './control-handler.ts'

export interface ControlApiOptions extends DriftCheck {
  router: Router
  validators: Validators
  /** Every control-plane operation's handler, by operationId, from the modules that own them. */
  handlers: ControlHandlers
  /** Pages served under `/_mock/` (docs, dashboard), by path, provided by adapters. */
  pages?: Record<string, () => EngineResponse>
  /** The admin token, when the mock was started with one; otherwise the control plane is loopback only. */
  adminToken?: string
  /** Host names the control plane answers besides loopback ones and addresses; undefined: no `Host` check. */
  allowedHosts?: readonly string[]
}

/**
 * The mock's control plane under `/_mock/` (`openapi/mock-control.yaml`, the simulated dashboard), as a
 * pipeline: who may call it, its pages, then route, input and the operation's handler, like the v1 API. It is
 * not journaled, so that a dashboard that polls does not push the API's requests out of the journal.
 */
export function createControlApi(options: ControlApiOptions): Api {
  const { router, validators, handlers } = options
  const pages = options.pages ?? {}
  const pageOf = (ctx: RequestContext) =>
    ['GET', 'HEAD'].includes(methodOf(ctx)) ? pages[ctx.path] : undefined

  /** A page: refused when its request is too large (a 413 must mean that nothing happened), else served. */
  const pageStep: Step = (ctx, next) => {
    const page = pageOf(ctx)
    if (!page) return next()
    if (ctx.request.bodyTooLarge) throw errors.payloadTooLarge(MAX_BODY_BYTES)
    return page()
  }

  const runStep: Step = (ctx) => {
    const { operation, params } = routed(ctx)
    const handler = handlers[operation.operationId]
    if (!handler) throw errors.routeNotFound(ctx.request.method, ctx.url.pathname)
    return handler({
      params,
      query: ctx.query,
      body: ctx.body,
      baseUrl: ctx.request.baseUrl,
      loopback: isLoopback(ctx.request.clientIp),
    })
  }

  return {
    prefix: '/_mock',
    context: (base) => base,
    handle: compose([
      authorizeClientStep({
        adminToken: options.adminToken,
        allowedHosts: options.allowedHosts,
        isPage: (ctx) => pageOf(ctx) !== undefined,
      }),
      pageStep,
      routeStep(router),
      readQueryStep(validators),
      readBodyStep,
      validateBodyStep(validators),
      checkAnswerStep(validators, options),
      runStep,
    ]),
  }
}

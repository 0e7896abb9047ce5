import { type ApiError, errors } from '../api-error.ts'
import { json } from '../json-answer.ts'
import { newId } from '../random.ts'
import { redactDeep } from '../secrets.ts'
import type { EngineRequest, EngineResponse } from '../types.ts'
import type { RequestContext } from './request-context.ts'

/**
 * One API the engine serves under a path prefix (`/v1`, `/_mock`): its pipeline of steps, and what it adds to
 * every answer once the answer is known (CORS, the journal).
 */
export interface Api<C extends RequestContext = RequestContext> {
  /** The path prefix, without a trailing slash. */
  prefix: string
  /** The API's own context for a request (the fields its steps fill in). */
  context(base: RequestContext): C
  /** The composed steps: an answer for every request (an `ApiError` arrives as its answer). */
  handle(ctx: C): EngineResponse
  /** Told of every answer of this API, after it was given its `Request-Id`. */
  finish?(ctx: C, response: EngineResponse, startedAt: number): void
}

const ROOT = 'http://mock.invalid'
/** Most request URLs kept parsed; past it the cache starts again empty. */
const MAX_PARSED_URLS = 512

/** Whether `path` lies under `prefix` (the prefix itself, or below it). */
const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`)

/**
 * The engine's front door: finds the API a request is for, runs its pipeline, and gives every answer what all
 * answers get (a `Request-Id`, key values redacted from error bodies). A request for no API is 404; a defect
 * of the mock is a 500 naming it, never a crash.
 */
export function createRequestHandler(
  // biome-ignore lint/suspicious/noExplicitAny: each API has a context of its own, made by its own `context`
  apis: readonly Api<any>[],
  /** Told of the answers to requests under no API's prefix (404, a malformed URL), as an API's `finish` is. */
  outside?: (ctx: RequestContext, response: EngineResponse, startedAt: number) => void,
) {
  const served = apis as readonly Api[]
  /**
   * Request URLs as parsed, by their text: a client repeats the same few (`/v1/agents`), and parsing is a
   * good part of a small request's cost. The steps only read a context's URL, never change it, so one parsed
   * URL serves every request with the same text.
   */
  let parsed = new Map<string, URL>()

  function parse(text: string): URL {
    let url = parsed.get(text)
    if (url === undefined) {
      url = new URL(text, ROOT)
      if (parsed.size >= MAX_PARSED_URLS) parsed = new Map()
      parsed.set(text, url)
    }
    return url
  }

  function baseContext(request: EngineRequest, url: URL, path: string): RequestContext {
    // Every field a step may set is there from the start: one shape for every context.
    return {
      request,
      url,
      requestId: newId('req', 20),
      path,
      headers: {},
      operation: undefined,
      params: {},
      query: {},
      body: undefined,
    }
  }

  function answer(api: Api | undefined, ctx: RequestContext, response: EngineResponse, startedAt: number) {
    response.headers['request-id'] = ctx.requestId
    // A key sent in the path or as a parameter name is never echoed by an error.
    if (response.status >= 400 && response.body && typeof response.body === 'object')
      response.body = redactDeep(response.body)
    if (api) api.finish?.(ctx, response, startedAt)
    else outside?.(ctx, response, startedAt)
    return response
  }

  function locate(request: EngineRequest): { url: URL; api?: Api } | ApiError {
    try {
      const url = parse(request.url)
      return { url, api: served.find((api) => under(url.pathname, api.prefix)) }
    } catch {
      return errors.invalidParameter('url', 'The request URL is malformed.')
    }
  }

  /** Answers one request, synchronously: nothing else runs in the engine until it is answered. */
  function handle(request: EngineRequest): EngineResponse {
    const startedAt = performance.now()
    const located = locate(request)
    if (!('url' in located)) {
      const ctx = baseContext(request, new URL(`${ROOT}/`), '/')
      return answer(undefined, ctx, located.toResponse(ctx.requestId), startedAt)
    }
    const { url, api } = located
    const base = baseContext(request, url, api ? url.pathname.slice(api.prefix.length) || '/' : url.pathname)
    if (!api)
      return answer(
        undefined,
        base,
        errors.routeNotFound(request.method, url.pathname).toResponse(base.requestId),
        startedAt,
      )
    const ctx = api.context(base)
    let response: EngineResponse
    try {
      response = api.handle(ctx)
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      response = json(500, errors.internal(`Internal error: ${message}`).body(ctx.requestId))
    }
    return answer(api, ctx, response, startedAt)
  }

  /**
   * The answer to a request whose changes the store could not keep (they were undone): the error, with what
   * every answer gets, told to its API as the client saw it.
   */
  function refuse(request: EngineRequest, error: ApiError): EngineResponse {
    const startedAt = performance.now()
    const located = locate(request)
    const url = 'url' in located ? located.url : new URL(`${ROOT}/`)
    const api = 'url' in located ? located.api : undefined
    const base = baseContext(request, url, api ? url.pathname.slice(api.prefix.length) || '/' : url.pathname)
    const ctx = api ? api.context(base) : base
    return answer(api, ctx, error.toResponse(ctx.requestId), startedAt)
  }

  return { handle, refuse }
}

export type RequestHandler = ReturnType<typeof createRequestHandler>

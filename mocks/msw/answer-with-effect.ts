import { delay, HttpResponse } from 'msw'
import type { EngineResponse, ResponseEffect } from '../engine/types.ts'
import { toFetchResponse } from './fetch-bridge.ts'

/**
 * A request left unanswered (`network_error: timeout`) gets a failed fetch after this long at the latest, when
 * its client never gives up (a browser's service worker does not pass the page's abort signal on).
 */
export const UNANSWERED_CAP_MS = 5 * 60_000

/** Resolves when `signal` aborts, or after `capMs`. */
function untilAborted(signal: AbortSignal, capMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const timer = setTimeout(done, capMs)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done)
  })
}

/**
 * The engine's answer as MSW's: a scenario's delay as a real wait (`delay()`), a dropped connection as
 * `HttpResponse.error()` (the fetch fails with a TypeError), and an unanswered request as nothing until the
 * request's signal aborts (the client gave up), then a failed fetch.
 */
export function answerWithEffect(response: EngineResponse, request: Request): Response | Promise<Response> {
  const effect = response.effect
  // Most answers carry no effect: answered at once, without another turn of the event loop.
  if (!effect) return toFetchResponse(response, request.method)
  return carryOut(effect, response, request)
}

async function carryOut(
  effect: ResponseEffect,
  response: EngineResponse,
  request: Request,
): Promise<Response> {
  if (effect.delayMs) await delay(effect.delayMs)
  if (effect.network === 'timeout') await untilAborted(request.signal, UNANSWERED_CAP_MS)
  if (effect.network) return HttpResponse.error()
  return toFetchResponse(response, request.method)
}

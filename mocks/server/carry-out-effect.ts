import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ResponseEffect } from '../engine/types.ts'

/** Resolves after `ms`, or as soon as the response's connection closes (the client gave up). */
function waitUnlessClosed(res: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      res.off('close', done)
      resolve()
    }
    res.once('close', done)
  })
}

/**
 * Carries out a scenario's effect on a node:http exchange: waits the delay (unless the client leaves first),
 * then drops the connection with a TCP reset (`reset`: the client sees ECONNRESET), or leaves the request
 * unanswered (`timeout`: until the client gives up, or the server's socket timeout closes the silent
 * connection). Resolves true when the response is still to be sent.
 */
export async function carryOutEffect(
  req: IncomingMessage,
  res: ServerResponse,
  effect: ResponseEffect,
): Promise<boolean> {
  if (effect.delayMs) await waitUnlessClosed(res, effect.delayMs)
  if (res.destroyed || req.socket.destroyed) return false
  if (effect.network === 'reset') {
    req.socket.resetAndDestroy()
    return false
  }
  return effect.network !== 'timeout'
}

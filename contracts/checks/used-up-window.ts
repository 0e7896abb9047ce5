import type { ContractOperation } from '../contract/operations.ts'
import { fillPath } from '../contract/operations.ts'
import type { Exchange } from '../http/exchange.ts'
import { readRateLimitHeaders } from '../http/rate-limit-headers.ts'
import { cannotWrite } from './cannot-write.ts'
import { CheckSkipped, ensure, expectStatus, fail, jsonObject } from './failure.ts'
import { CALL_LOG_READS, UNKNOWN_IDS } from './fixtures.ts'
import { limitAccount } from './rate-limit-account.ts'
import { expect429 } from './rate-limits.ts'
import type { CheckCallInput, CheckContext, ContractCheck } from './types.ts'

/** One request per operation that documents a 429 (sent with `key`, when given), and why an operation gets none. */
function probes(ctx: CheckContext, key?: string): { inputs: CheckCallInput[]; left: string[] } {
  const inputs: CheckCallInput[] = []
  const left: string[] = []
  const documented = ctx.contract.operations.filter((op) => op.responses.has('429'))
  // Reads first: a write is sent only after every read was refused, while the target refuses everything.
  const ordered = [
    ...documented.filter((op) => op.method === 'get'),
    ...documented.filter((op) => op.method !== 'get'),
  ]
  for (const operation of ordered) {
    const input = probe(ctx, operation, key)
    if (typeof input === 'string') left.push(`${operation.operationId} (${input})`)
    else inputs.push(input)
  }
  return { inputs, left }
}

function probe(ctx: CheckContext, operation: ContractOperation, own?: string): CheckCallInput | string {
  const method = operation.method.toUpperCase()
  const path = fillPath(operation.path, UNKNOWN_IDS)
  const base = { method, path, operationId: operation.operationId, rateLimitProbe: true }
  if (method === 'GET') {
    const key = own ?? (CALL_LOG_READS.has(operation.operationId) ? ctx.keys.callLogs : ctx.keys.secret)
    return key ? { ...base, key } : 'no key that may read it'
  }
  // Only a write that cannot change anything on any implementation, whatever it answers (cannot-write.ts):
  // an ID that no implementation holds, no body. A write to a collection with a key is never sent.
  const input = { ...base, key: own ?? ctx.keys.secret }
  return cannotWrite(input, ctx.keys.secrets()) ? input : `${method} ${operation.path} with a key could write`
}

/**
 * Where the run may spend a rate limit on the mock (`--provision mock --destructive`): a fresh free-plan
 * account (its own, deleted in teardown) whose burst window is used up by as many `GET /user` as it holds.
 */
async function usedUpAccount(ctx: CheckContext): Promise<string> {
  const account = await limitAccount(ctx, 'free')
  for (let i = 0; i < account.quotas.burst; i++) {
    const exchange = await ctx.call({
      method: 'GET',
      path: '/user',
      key: account.key,
      rateLimitProbe: true,
      sensitive: [account.key],
      operationId: 'getUser',
    })
    expectStatus(
      exchange,
      200,
      `for request ${i + 1} of the ${account.quotas.burst} of a free plan's burst window`,
    )
  }
  return account.key
}

/**
 * While a window of the account's rate limit is used up, every operation answers 429 before anything else
 * (docs/decisions/005-order-of-checks.md) and no window counts it (docs/decisions/006-rate-limits.md): the
 * 429 of every operation can be seen for nothing. The run sends these requests the first time it has to wait
 * for a used-up window, before the wait (`pacer.onceUsedUp`, wired by the check runner), and reports the
 * outcome at the check's place; a run that never uses up a window sends them at the check's place. Where the
 * run may spend a rate limit on the mock (`--provision mock --destructive`), the check uses up the burst
 * window of an account of its own first, and sends them with that account's key.
 *
 * The first request is `GET /user`. An answer that is not 429 (the target had room: a larger quota than it
 * advertised, a window that slid) is checked like any other and ends the probing: the check is then not
 * applicable, having spent one request. Writes are sent only after every read was refused, only in the
 * forms that cannot write (`cannotWrite`), and the probing stops at the first answer that is not 429.
 * Each 429 is checked like any other answer (status documented, headers, body), and carries `Retry-After`
 * in seconds equal to `error.retry_after`, within the window `error.policy` names and equal to the largest
 * `t` of the used-up windows, that window at `r=0` (`expect429`, rate-limits.ts), and `Retry-After` never
 * grows from one answer to the next (nothing was counted in between).
 */
async function usedUpWindow(ctx: CheckContext): Promise<void> {
  const own = ctx.mock && ctx.target.destructive ? await usedUpAccount(ctx) : undefined
  const { inputs, left } = probes(ctx, own)
  if (left.length > 0) ctx.note(`no request for ${left.join(', ')}`)
  let previous: Exchange | undefined
  let refused = 0
  for (const input of inputs) {
    const exchange = await ctx.call(input)
    const what = `${input.method} ${input.path}`
    if (exchange.response.status !== 429) {
      if (!previous)
        throw new CheckSkipped(
          `not applicable now: ${what} answered ${exchange.response.status}, not 429, so no window of the account is used up; this check spends nothing to use one up (it runs when the run first waits for a used-up window)`,
          true,
        )
      ctx.note(
        `the window freed up after ${refused} refused requests: ${what} answered ${exchange.response.status}`,
      )
      return
    }
    // The contract pins error.policy to the windows of RateLimit-Policy (the answer's conformance, above).
    const policy = (jsonObject(exchange).error as { policy: 'burst' | 'hourly' }).policy
    const headers = readRateLimitHeaders(exchange.response.headers)
    if (!headers.ok) fail('rate-limit headers in the IETF syntax', headers.error, exchange)
    const window = headers.value.policies.find((p) => p.name === policy)?.window ?? 0
    const retryAfter = expect429(exchange, policy, window)
    if (previous) {
      const before = Number(previous.response.headers['retry-after'])
      ensure(
        retryAfter <= before,
        `Retry-After at most the ${before} s of the answer before (${previous.request.method} ${previous.request.url.replace(/^.*?\/v1(?=\/)/, '')}): nothing was counted in between`,
        String(retryAfter),
        exchange,
      )
    }
    previous = exchange
    refused++
  }
}

/** 429 for every operation, for nothing, when the run has used up a window (see `usedUpWindow`). */
export const usedUpWindowCheck: ContractCheck = {
  id: 'rate-limits/used-up-window',
  area: 'rate-limits',
  group: 'Every operation',
  title:
    'answers 429 to every operation while a window is used up (reads, and writes in forms that cannot write), with Retry-After and the rate-limit headers, in read-only runs too',
  run: usedUpWindow,
}

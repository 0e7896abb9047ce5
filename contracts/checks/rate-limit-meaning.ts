import type { Exchange } from '../http/exchange.ts'
import type { Plan } from '../target/target.ts'
import { ensure, expectError, jsonObject } from './failure.ts'
import { type LimitAccount, limitAccount, makeLimitAccount } from './rate-limit-account.ts'
import { expectCountedOnce, view } from './rate-limit-view.ts'
import { answeredBefore, countdown, dateOf, secondsBetween, type TargetTime, timed } from './time-passes.ts'
import type { CheckContext, ContractCheck } from './types.ts'

/**
 * How far a `t` or an epoch second may be from the value computed here: "whole seconds" may be rounded
 * either way, and a second may tick between the response and the clock reading.
 */
const SECOND_TOLERANCE = 1

/** The burst window's length (`w`), docs/decisions/006-rate-limits.md. */
const BURST_SECONDS = 60

async function get(ctx: CheckContext, key: string): Promise<Exchange> {
  return ctx.call({
    method: 'GET',
    path: '/user',
    key,
    rateLimitProbe: true,
    sensitive: [key],
    operationId: 'getUser',
  })
}

function expectAdmitted(exchange: Exchange, why: string): void {
  ensure(exchange.response.status !== 429, `the request admitted ${why}`, '429', exchange)
}

function expectNear(exchange: Exchange, what: string, got: number | undefined, want: number): void {
  ensure(
    got !== undefined && Math.abs(got - want) <= SECOND_TOLERANCE,
    `${what} = ${want} (within ${SECOND_TOLERANCE} s)`,
    String(got),
    exchange,
  )
}

/**
 * `X-RateLimit-Reset` is the epoch second at which the window with the least remaining frees its oldest
 * request: the target's time when it answered plus that window's `t` (so `reset - t` is that time, in whole
 * seconds rounded either way).
 */
function expectResetEpoch(exchange: Exchange, at: TargetTime | undefined): void {
  if (!at) return
  const headers = exchange.response.headers
  const reset = Number(headers['x-ratelimit-reset'])
  const states = view(exchange).states
  const least = Math.min(...states.map((s) => s.remaining))
  const [from, until] = [Math.floor(at.from / 1000), Math.floor((at.until - 1) / 1000)]
  const wants = states
    .filter((s) => s.remaining === least)
    .map((s) => `${from + s.reset - SECOND_TOLERANCE}-${until + s.reset + SECOND_TOLERANCE}`)
  ensure(
    states.some(
      (s) =>
        s.remaining === least &&
        reset >= from + s.reset - SECOND_TOLERANCE &&
        reset <= until + s.reset + SECOND_TOLERANCE,
    ),
    `X-RateLimit-Reset = now + t in epoch seconds (${wants.join(' or ')}, now being the target's clock when it answered)`,
    String(headers['x-ratelimit-reset']),
    exchange,
  )
}

/**
 * Fails unless `got` is what a countdown of `total` seconds shows after the seconds that passed on the target's
 * clock between the two answers (`since` and `now`), rounded either way.
 */
function expectCountdown(
  exchange: Exchange,
  what: string,
  got: number | undefined,
  total: number,
  since: TargetTime,
  now: TargetTime,
): void {
  const passed = secondsBetween(since, now)
  const [low, high] = countdown(total, passed)
  ensure(
    got !== undefined && got >= low && got <= high,
    `${what} = ${total} s less the ${Math.max(0, passed.least).toFixed(1)}-${passed.most.toFixed(1)} s that passed on the target's clock: ${low === high ? low : `${low} to ${high}`}`,
    String(got),
    exchange,
  )
}

/**
 * The budget belongs to the account: requests with any of its keys use up one burst window, and once it
 * is spent every key of the account gets the 429, then every key is admitted again after Retry-After.
 */
async function sharedScenario(ctx: CheckContext, account: LimitAccount): Promise<void> {
  const keys = [account.key, ...account.others]
  if (keys.length < 2) return ctx.skip('needs a second key of the same account (--publishable-key)')
  const keyOf = (i: number) => keys[i % keys.length] as string
  const { exchange: first, at: firstAt } = await timed(ctx, () => get(ctx, account.key))
  expectAdmitted(first, 'first')
  // What the windows held before this request (on a real target the setup may have spent some already).
  const burst = (view(first).remaining('burst') ?? 0) + 1
  const hourly = (view(first).remaining('hourly') ?? 0) + 1
  // One request with each other key, then the mock's clock: once they have left the window, each key has.
  const others = await account.sendAll(keys.length - 1, (i) => get(ctx, keyOf(i + 1)))
  const othersBefore = await answeredBefore(ctx)
  const rest = await account.sendAll(burst - keys.length, (i) => get(ctx, keyOf(i + keys.length)))
  const spent = [...others, ...rest]
  for (const [i, exchange] of spent.entries())
    expectAdmitted(exchange, `(${i + 2} of ${burst}, keys taken in turn)`)
  const why = `after ${burst} requests with ${keys.length} keys of one account`
  expectCountedOnce(spent, 'burst', burst - 2, why)
  expectCountedOnce(spent, 'hourly', hourly - 2, why)
  let retryAfter = 0
  for (const refused of await account.sendAll(keys.length, (i) => get(ctx, keyOf(i)))) {
    expectError(
      refused,
      429,
      { code: 'rate_limit_exceeded' },
      'for every key once the account spent its burst',
    )
    const policy = (jsonObject(refused).error as Record<string, unknown>).policy
    ensure(policy === 'burst', 'error.policy "burst"', JSON.stringify(policy), refused)
    retryAfter = Math.max(retryAfter, Number(refused.response.headers['retry-after']))
  }
  const lastBefore = othersBefore ?? dateOf(others.at(-1))
  if (!firstAt || lastBefore === undefined)
    return ctx.note(
      'the target tells no time (no mock clock, no Date header): recovery with each key not compared',
    )
  // Retry-After frees the oldest request; the one with the last key leaves as much later as it was counted
  // later, by the target's clock.
  await account.pass(retryAfter + Math.ceil((lastBefore - firstAt.from) / 1000))
  const keysBack = keys.slice().reverse()
  for (const exchange of await account.sendAll(keysBack.length, (i) => get(ctx, keysBack[i] as string)))
    expectAdmitted(exchange, 'after Retry-After, with each key')
}

/**
 * The numbers mean what the draft says: `t` counts down with the clock to the moment the oldest request
 * leaves, a window empties after `w` seconds, `X-RateLimit-Reset` is that moment in epoch seconds, and the
 * 429's `Retry-After` is the `t` of the exhausted window.
 */
async function meaningScenario(ctx: CheckContext, account: LimitAccount): Promise<void> {
  const { exchange: first, at: firstAt } = await timed(ctx, () => get(ctx, account.key))
  expectAdmitted(first, 'first in the window')
  const start = view(first)
  expectNear(
    first,
    'RateLimit "burst";t after the first request of an empty window',
    start.reset('burst'),
    BURST_SECONDS,
  )
  expectResetEpoch(first, firstAt)
  const step = account.simulated ? 20 : 2
  const passed = await account.pass(step)
  const { exchange: later, at: laterAt } = await timed(ctx, () => get(ctx, account.key), passed)
  expectAdmitted(later, `${step} s later`)
  const moved = view(later)
  // How much time passed is the target's to say (its clock), not the client's: across a network every
  // request takes a round trip that the target's clock counts and the step does not.
  if (firstAt && laterAt)
    expectCountdown(
      later,
      `RateLimit "burst";t ${step} s later`,
      moved.reset('burst'),
      BURST_SECONDS,
      firstAt,
      laterAt,
    )
  else ctx.note("the target tells no time (no mock clock, no Date header): t's countdown not compared")
  const left = moved.remaining('burst') ?? 0
  ensure(
    left === (start.remaining('burst') ?? 0) - 1,
    `RateLimit "burst";r one less than after the first request (${(start.remaining('burst') ?? 0) - 1})`,
    `r=${left}`,
    later,
  )
  expectResetEpoch(later, laterAt)
  const spent = await account.sendAll(left, () => get(ctx, account.key))
  for (const [i, exchange] of spent.entries()) expectAdmitted(exchange, `(${i + 1} of the ${left} left)`)
  const { exchange: refused, at: refusedAt } = await timed(ctx, () => get(ctx, account.key))
  expectError(refused, 429, { code: 'rate_limit_exceeded' })
  const t = view(refused).reset('burst')
  const retryAfter = Number(refused.response.headers['retry-after'])
  ensure(
    t !== undefined && retryAfter === t,
    'Retry-After equal to the t of the exhausted burst window',
    `Retry-After ${retryAfter}, t=${t}`,
    refused,
  )
  if (firstAt && refusedAt)
    expectCountdown(
      refused,
      'Retry-After: when the first request leaves the window',
      retryAfter,
      BURST_SECONDS,
      firstAt,
      refusedAt,
    )
  await account.pass(retryAfter)
  const recovered = await get(ctx, account.key)
  expectAdmitted(recovered, 'after Retry-After')
  if (!account.simulated) return
  // A fresh account: only the first request left the window; the others, sent `step` s later, remain.
  const r = view(recovered).remaining('burst')
  ensure(
    r === 0,
    'RateLimit "burst";r=0 after Retry-After (one request left the window, this one took its place)',
    `r=${r}`,
    recovered,
  )
}

function checksFor(plan: Plan, custom?: { hourly: number; burst: number }): ContractCheck[] {
  const label = custom ? `${plan} plan (custom limits)` : `${plan} plan`
  return [
    {
      id: `rate-limits/${plan}/shared-keys`,
      area: 'rate-limits',
      group: label,
      title:
        'shares one budget among all keys of the account: the burst spent with several keys, 429 for each',
      needs: ['rate-limits'],
      exclusive: true,
      prepare: (ctx) => makeLimitAccount(ctx, plan, custom, { others: true }),
      run: async (ctx) => sharedScenario(ctx, await limitAccount(ctx, plan, custom, { others: true })),
    },
    {
      id: `rate-limits/${plan}/header-meaning`,
      area: 'rate-limits',
      group: label,
      title:
        'counts t down with the clock, gives X-RateLimit-Reset as now + t in epoch seconds and Retry-After as the t of the exhausted window',
      needs: ['rate-limits'],
      exclusive: true,
      prepare: (ctx) => makeLimitAccount(ctx, plan, custom),
      run: async (ctx) => meaningScenario(ctx, await limitAccount(ctx, plan, custom)),
    },
  ]
}

/** The meaning of the rate-limit numbers, and the account-wide budget. */
export const rateLimitMeaningChecks: ContractCheck[] = [
  ...checksFor('free'),
  ...checksFor('pro'),
  ...checksFor('enterprise', { hourly: 24, burst: 6 }),
]

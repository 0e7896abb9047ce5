import type { Exchange } from '../http/exchange.ts'
import type { Plan } from '../target/target.ts'
import { ensure, expectError, expectStatus, fail, jsonObject } from './failure.ts'
import { type LimitAccount, limitAccount, makeLimitAccount } from './rate-limit-account.ts'
import { expectCountedOnce, view } from './rate-limit-view.ts'
import type { CheckContext, ContractCheck } from './types.ts'

/** Paths that use up quota: a success and 404s for unknown IDs (every admitted request counts). */
const PATHS = ['/user', '/agents/agt_0ContractSuiteNone0', '/team-members/mem_0ContractSuiteNone0']

async function send(
  ctx: CheckContext,
  account: LimitAccount,
  i: number,
  key = account.key,
): Promise<Exchange> {
  return ctx.call({
    method: 'GET',
    path: PATHS[i % PATHS.length] as string,
    key,
    rateLimitProbe: true,
    sensitive: [key],
  })
}

function expectRemaining(exchange: Exchange, window: string, want: number, why: string): void {
  const got = view(exchange).remaining(window)
  ensure(got === want, `RateLimit "${window}";r=${want} ${why}`, `r=${got}`, exchange)
}

function expectPolicy(exchange: Exchange, quotas: LimitAccount['quotas']): void {
  const policies = view(exchange).policies
  const want = `"hourly";q=${quotas.hourly};w=3600, "burst";q=${quotas.burst};w=60`
  const got = policies.map((p) => `"${p.name}";q=${p.quota};w=${p.window}`).join(', ')
  ensure(got === want, `RateLimit-Policy ${want}`, got, exchange)
}

/** The 429 the contract documents: body, policy, `Retry-After` equal to `error.retry_after`, `r=0`. */
export function expect429(exchange: Exchange, policy: 'burst' | 'hourly', window: number): number {
  expectError(exchange, 429, { type: 'rate_limit_error', code: 'rate_limit_exceeded' })
  const error = jsonObject(exchange).error as Record<string, unknown>
  ensure(error.policy === policy, `error.policy "${policy}"`, JSON.stringify(error.policy), exchange)
  const header = exchange.response.headers['retry-after']
  const retryAfter = Number(header)
  ensure(
    header !== undefined && /^[0-9]+$/.test(header),
    'a Retry-After header in delay-seconds',
    JSON.stringify(header ?? null),
    exchange,
  )
  ensure(
    error.retry_after === retryAfter,
    'error.retry_after equal to Retry-After',
    `${String(error.retry_after)} vs ${header}`,
    exchange,
  )
  ensure(
    retryAfter >= 1 && retryAfter <= window,
    `Retry-After between 1 and ${window}`,
    String(retryAfter),
    exchange,
  )
  expectRemaining(exchange, policy, 0, 'on a 429')
  // docs/decisions/006-rate-limits.md: Retry-After is the largest `t` of the exhausted windows (every window at r=0), so
  // that a retry after it is admitted: when both run out together, the longer wait, not the burst's.
  const exhausted = view(exchange).states.filter((state) => state.remaining === 0)
  const longest = Math.max(...exhausted.map((state) => state.reset))
  ensure(
    retryAfter === longest,
    `Retry-After equal to the largest t of the exhausted windows (${exhausted.map((s) => `"${s.name}";t=${s.reset}`).join(', ')})`,
    String(retryAfter),
    exchange,
  )
  return retryAfter
}

/** Exhausts the burst window exactly, shows that 401s and 429s do not count, and recovers after Retry-After. */
async function burstScenario(ctx: CheckContext, account: LimitAccount): Promise<void> {
  const { burst } = account.quotas
  const first = await send(ctx, account, 0)
  ensure(first.response.status !== 429, 'the first request of an empty burst window admitted', '429', first)
  expectPolicy(first, account.quotas)
  expectRemaining(first, 'burst', burst - 1, 'after the first request of the window')
  const hourlyStart = (view(first).remaining('hourly') ?? 0) + 1
  // The rest of the burst, and three requests with the revoked key among them (a 401 counts in no window).
  const revoked = account.revoked
  const unauthorized = revoked ? 3 : 0
  const answers = await account.sendAll(burst - 1 + unauthorized, (i) =>
    i < burst - 1 ? send(ctx, account, i + 1) : send(ctx, account, 0, revoked),
  )
  const rest = answers.slice(0, burst - 1)
  for (const [i, exchange] of rest.entries())
    ensure(exchange.response.status !== 429, `request ${i + 2} of ${burst} admitted`, '429', exchange)
  for (const exchange of answers.slice(burst - 1)) expectStatus(exchange, 401, 'for the revoked key')
  expectCountedOnce(rest, 'burst', burst - 2, `after the other ${burst - 1} requests of the burst`)
  expectCountedOnce(rest, 'hourly', hourlyStart - 2, `after the other ${burst - 1} requests of the burst`)
  const [refused, refusedAgain] = await account.sendAll(2, (i) => send(ctx, account, i))
  const retryAfter = expect429(refused as Exchange, 'burst', 60)
  expectRemaining(refused as Exchange, 'hourly', hourlyStart - burst, 'on the 429 (401s are not counted)')
  expect429(refusedAgain as Exchange, 'burst', 60)
  await account.pass(retryAfter)
  const again = await send(ctx, account, 0)
  ensure(
    again.response.status !== 429,
    `a request admitted after waiting Retry-After (${retryAfter} s)`,
    '429',
    again,
  )
  expectRemaining(
    again,
    'hourly',
    hourlyStart - burst - 1,
    'after recovering (401s and 429s are not counted)',
  )
}

/**
 * Uses the hourly quota exactly (letting the burst window pass between rounds, but not after the last one:
 * where the hourly quota is a multiple of the burst, both windows run out on the same request), then recovers.
 */
async function hourlyScenario(ctx: CheckContext, account: LimitAccount): Promise<void> {
  const { hourly, burst } = account.quotas
  let sent = 0
  while (sent < hourly) {
    const round = Math.min(burst, hourly - sent)
    const answers = await account.sendAll(round, (i) => send(ctx, account, sent + i))
    const refused = answers.find((exchange) => exchange.response.status === 429)
    if (refused)
      fail(
        `${hourly} requests admitted in the hour`,
        `429 among requests ${sent + 1} to ${sent + round}`,
        refused,
      )
    expectCountedOnce(answers, 'hourly', hourly - sent - 1, `after ${sent + round} requests`)
    sent += round
    if (sent < hourly) await account.pass(60)
  }
  const [refused, refusedAgain] = await account.sendAll(2, (i) => send(ctx, account, i))
  const retryAfter = expect429(refused as Exchange, 'hourly', 3600)
  ensure(retryAfter > 60, 'a Retry-After beyond the burst window', String(retryAfter), refused)
  expect429(refusedAgain as Exchange, 'hourly', 3600)
  await account.pass(retryAfter)
  const again = await send(ctx, account, 0)
  ensure(
    again.response.status !== 429,
    `a request admitted after waiting Retry-After (${retryAfter} s)`,
    '429',
    again,
  )
}

function planChecks(plan: Plan, custom?: { hourly: number; burst: number }): ContractCheck[] {
  const label = custom
    ? `${plan} plan (custom limits; on the mock ${custom.hourly}/h, ${custom.burst}/min)`
    : `${plan} plan`
  return [
    {
      id: `rate-limits/${plan}/burst`,
      area: 'rate-limits',
      group: label,
      title:
        'admits exactly the burst limit, answers 429 with Retry-After, counts neither 401s nor 429s, recovers after Retry-After',
      needs: ['rate-limits'],
      exclusive: true,
      prepare: (ctx) => makeLimitAccount(ctx, plan, custom, { revoked: true }),
      run: async (ctx) => burstScenario(ctx, await limitAccount(ctx, plan, custom, { revoked: true })),
    },
    {
      id: `rate-limits/${plan}/hourly`,
      area: 'rate-limits',
      group: label,
      title:
        'admits exactly the hourly limit, then answers 429 naming the hourly window, recovers after Retry-After',
      needs: ['rate-limits', 'clock'],
      exclusive: true,
      prepare: (ctx) => makeLimitAccount(ctx, plan, custom),
      run: async (ctx) => hourlyScenario(ctx, await limitAccount(ctx, plan, custom)),
    },
  ]
}

/** Rate limits per plan (opt-in): exact burst and hourly quotas, 429s, Retry-After, recovery. */
export const rateLimitChecks: ContractCheck[] = [
  ...planChecks('free'),
  ...planChecks('pro'),
  ...planChecks('enterprise', { hourly: 24, burst: 6 }),
]

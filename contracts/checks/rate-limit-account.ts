import { readRateLimitHeaders } from '../http/rate-limit-headers.ts'
import type { Plan } from '../target/target.ts'
import { ensure, expectStatus, inOrder } from './failure.ts'
import type { CheckContext } from './types.ts'

/** The spec's rate-limit table (requests per hour and per minute); enterprise is custom. */
export const PLAN_LIMITS: Record<Exclude<Plan, 'enterprise'>, { hourly: number; burst: number }> = {
  free: { hourly: 100, burst: 10 },
  pro: { hourly: 1000, burst: 50 },
}

/** An account whose windows a rate-limit check may exhaust. */
export interface LimitAccount {
  key: string
  /** A revoked key of the same account, to show that 401s are not counted. */
  revoked?: string
  /** Other active keys of the same account (they share its budget). */
  others: string[]
  /** The quotas the account must have. */
  quotas: { hourly: number; burst: number }
  /** Lets `seconds` pass: the mock's clock (then its reading once moved, ms), or a real wait. */
  pass(seconds: number): Promise<number | undefined>
  /** Whether time is simulated (so hour-long windows can be tested). */
  simulated: boolean
  /**
   * Sends `count` requests made by `send(i)`: all at once on the mock (it admits exactly what its windows
   * hold, whatever the concurrency, and a round trip costs no window time), one after another on a real target.
   */
  sendAll<T>(count: number, send: (i: number) => Promise<T>): Promise<T[]>
}

/** All at once; what the first of them (in order, not in time) threw is thrown, so failures read the same. */
const atOnce = <T>(count: number, send: (i: number) => Promise<T>) =>
  inOrder(Array.from({ length: count }, (_, i) => send(i)))

async function inTurn<T>(count: number, send: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = []
  for (let i = 0; i < count; i++) out.push(await send(i))
  return out
}

/** The keys a rate-limit check uses besides the account's secret key. */
export interface LimitKeys {
  /** A revoked key of the account (`revoked`). */
  revoked?: boolean
  /** Other active keys of the account (`others`). */
  others?: boolean
}

/** An account a check made on the mock for its rate limits: its keys and quotas (`makeLimitAccount`). */
export interface MadeLimitAccount {
  key: string
  revoked?: string
  others: string[]
  quotas: { hourly: number; burst: number }
}

/**
 * A fresh account of the plan on the mock (deleted in teardown), with the keys the check uses; undefined
 * without the mock. Only the control plane is asked: a rate-limit check makes it in its `prepare`, beside the
 * other checks, before its turn alone.
 */
export async function makeLimitAccount(
  ctx: CheckContext,
  plan: Plan,
  custom?: { hourly: number; burst: number },
  uses: LimitKeys = {},
): Promise<MadeLimitAccount | undefined> {
  const mock = ctx.mock
  if (!mock) return undefined
  const name = `Contract suite ${ctx.runId} ${plan} limits`
  const account = await mock.createAccount({ plan, name, limits: custom ?? null })
  ctx.defer(async () => void (await mock.deleteAccount(account.id)))
  const [key, revoked, ...others] = await Promise.all([
    mock.createKey(account.id, { type: 'secret', name }),
    ...(uses.revoked ? [mock.createKey(account.id, { type: 'secret', name: `${name} revoked` })] : []),
    ...(uses.others
      ? [
          mock.createKey(account.id, { type: 'secret', name: `${name} reader`, permissions: ['read'] }),
          mock.createKey(account.id, { type: 'publishable', name: `${name} publishable` }),
        ]
      : []),
  ])
  if (!key) throw new Error('unreachable: the secret key is always made')
  if (revoked) await mock.revokeKey(revoked.id)
  return {
    key: key.value,
    revoked: revoked?.value,
    others: others.map((other) => other.value),
    quotas: custom ?? (plan === 'enterprise' ? account.limits : PLAN_LIMITS[plan]),
  }
}

/**
 * The account a rate-limit check spends: on the mock, a fresh account of the plan (the one its `prepare`
 * made, `ctx.prepared`, or one made now), whose time the mock's clock moves; elsewhere the account under test
 * when it is on that plan (its windows are spent for real, so the check first waits for an empty burst window).
 */
export async function limitAccount(
  ctx: CheckContext,
  plan: Plan,
  custom?: { hourly: number; burst: number },
  uses: LimitKeys = {},
): Promise<LimitAccount> {
  const mock = ctx.mock
  if (mock) {
    const made =
      (ctx.prepared as MadeLimitAccount | undefined) ?? (await makeLimitAccount(ctx, plan, custom, uses))
    if (!made) throw new Error('unreachable: an account is made on the mock')
    return {
      ...made,
      simulated: true,
      pass: async (s) => Date.parse((await mock.advanceClock(s)).now),
      sendAll: atOnce,
    }
  }
  if (ctx.plan !== plan)
    return ctx.skip(`the account under test is on the ${ctx.plan ?? 'unknown'} plan, not ${plan}`)
  const maxWait = ctx.target.maxWaitSeconds ?? 60
  const pass = async (seconds: number) => {
    if (seconds > maxWait) return ctx.skip(`needs a ${seconds} s wait, longer than --max-wait ${maxWait}`)
    await ctx.wait(seconds + 0.25, `${seconds} s to pass in the account's rate-limit windows`)
    return undefined
  }
  const first = await ctx.call({ method: 'GET', path: '/user', rateLimitProbe: true, operationId: 'getUser' })
  expectStatus(first, [200, 429])
  const headers = readRateLimitHeaders(first.response.headers)
  ensure(headers.ok, 'readable rate-limit headers', headers.ok ? '' : headers.error, first)
  if (!headers.ok) throw new Error('unreachable')
  const policy = (name: string) => headers.value.policies.find((p) => p.name === name)
  const quotas =
    plan === 'enterprise'
      ? { hourly: policy('hourly')?.quota ?? 0, burst: policy('burst')?.quota ?? 0 }
      : PLAN_LIMITS[plan]
  // Start from an empty burst window: unless this request was alone in it, wait a whole window.
  const burst = policy('burst')
  if (headers.value.remaining('burst') !== (burst?.quota ?? 0) - 1) await pass(burst?.window ?? 60)
  // The publishable key is documented as one of the same account (scoped keys may come from elsewhere).
  const others = ctx.keys.publishable ? [ctx.keys.publishable] : []
  return {
    key: ctx.keys.secret,
    revoked: ctx.keys.revoked,
    others,
    quotas,
    simulated: false,
    pass,
    sendAll: inTurn,
  }
}

import type { Clock } from './clock.ts'
import { newId } from './random.ts'
import type { WindowLimit } from './rate-limiter.ts'

export type Plan = 'free' | 'pro' | 'enterprise'

export interface Limits {
  hourly: number
  burst: number
}

/** Default limits per plan (the spec's table; enterprise is custom, 10000 and 500 until set). */
export const PLAN_LIMITS: Record<Plan, Limits> = {
  free: { hourly: 100, burst: 10 },
  pro: { hourly: 1000, burst: 50 },
  enterprise: { hourly: 10_000, burst: 500 },
}

/** An account, seen through `/v1/user` as the User object. */
export interface Account {
  id: string
  object: 'user'
  email: string
  name: string
  plan: Plan
  created_at: string
  /** Limits set for this account; null follows the plan's defaults. */
  custom_limits: Limits | null
}

export interface AccountInput {
  plan: Plan
  email?: string
  name?: string
  limits?: Limits | null
  id?: string
}

/** The limits in force for an account. */
export function limitsOf(account: Account): Limits {
  return account.custom_limits ?? PLAN_LIMITS[account.plan]
}

/** The two windows of an account's limits, in the order the headers list them. */
export function windowsOf(account: Account): WindowLimit[] {
  const limits = limitsOf(account)
  return [
    { policy: 'hourly', quota: limits.hourly, seconds: 3600 },
    { policy: 'burst', quota: limits.burst, seconds: 60 },
  ]
}

/** The accounts of the platform, in memory. */
export function createAccountStore(clock: Clock) {
  const accounts = new Map<string, Account>()
  let windowCache = new WeakMap<Account, WindowLimit[]>()

  return {
    create(input: AccountInput): Account {
      const id = input.id ?? newId('usr')
      const account: Account = {
        id,
        object: 'user',
        email: input.email ?? `${id.toLowerCase()}@example.com`,
        name: input.name ?? 'Mock Account',
        plan: input.plan,
        created_at: clock.iso(),
        custom_limits: input.limits ?? null,
      }
      accounts.set(id, account)
      return account
    },
    get: (id: string) => accounts.get(id),
    list: () => [...accounts.values()],
    update(id: string, patch: { plan?: Plan; limits?: Limits | null }): Account | undefined {
      const account = accounts.get(id)
      if (!account) return undefined
      if (patch.plan) account.plan = patch.plan
      if (patch.limits !== undefined) account.custom_limits = patch.limits
      windowCache = new WeakMap()
      return account
    },
    /** The account's windows, cached until its limits change (hot path). */
    windows(account: Account): WindowLimit[] {
      let windows = windowCache.get(account)
      if (!windows) {
        windows = windowsOf(account)
        windowCache.set(account, windows)
      }
      return windows
    },
    /** Forgets an account; its keys and data are removed by their own stores. */
    remove: (id: string) => accounts.delete(id),
    restore(list: Account[]): void {
      accounts.clear()
      windowCache = new WeakMap()
      for (const account of list) accounts.set(account.id, account)
    },
  }
}

export type AccountStore = ReturnType<typeof createAccountStore>

/** The User object of `/v1/user`. */
export function toUser(account: Account) {
  const { id, object, email, name, plan, created_at } = account
  return { id, object, email, name, plan, created_at }
}

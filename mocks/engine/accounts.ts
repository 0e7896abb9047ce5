import { accountControl } from './account-control.ts'
import type { Account, AccountInput, Limits, Plan } from './account-types.ts'
import type { Clock } from './clock.ts'
import { newId } from './random.ts'
import type { WindowLimit } from './rate-limiter.ts'
import type { EngineState } from './state/state.ts'

export type { Account, AccountInput, Limits, Plan } from './account-types.ts'

/** Default limits per plan (the spec's table; enterprise is custom, 10000 and 500 until set). */
export const PLAN_LIMITS: Record<Plan, Limits> = {
  free: { hourly: 100, burst: 10 },
  pro: { hourly: 1000, burst: 50 },
  enterprise: { hourly: 10_000, burst: 500 },
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

/** The state table of the accounts, by id. */
export const ACCOUNTS_TABLE = 'accounts'

/**
 * The accounts of the platform: a table of the engine's state. Records are replaced, never changed in place,
 * so a change, a snapshot or a cached value can hold one safely.
 */
export function createAccountStore(clock: Clock, state: EngineState) {
  const accounts = new Map<string, Account>()
  const windowCache = new WeakMap<Account, WindowLimit[]>()

  function put(account: Account): void {
    const before = accounts.get(account.id) ?? null
    accounts.set(account.id, account)
    state.record(ACCOUNTS_TABLE, account.id, account, before)
  }

  state.register(ACCOUNTS_TABLE, {
    apply(id, value) {
      if (value === null) accounts.delete(id)
      else accounts.set(id, value as Account)
    },
    entries: () => accounts.entries(),
    clear: () => accounts.clear(),
    account: (id) => id,
  })

  return {
    create(input: AccountInput): Account {
      const id = input.id ?? newId('usr')
      const account: Account = {
        id,
        object: 'user',
        email: input.email ?? `${id.toLowerCase()}@example.com`,
        name: input.name ?? 'Mock Account',
        plan: input.plan,
        created_at: input.created_at ?? clock.iso(),
        custom_limits: input.limits ?? null,
      }
      put(account)
      return account
    },
    get: (id: string) => accounts.get(id),
    list: () => [...accounts.values()],
    size: () => accounts.size,
    // The control plane's change of an account's plan or limits.
    ...accountControl(accounts, put),
    /** The account's windows, cached per record: a changed account is a new record (hot path). */
    windows(account: Account): WindowLimit[] {
      let windows = windowCache.get(account)
      // Stryker disable next-line ConditionalExpression: a cache: the windows of a record computed again are the same windows
      if (!windows) {
        windows = windowsOf(account)
        windowCache.set(account, windows)
      }
      return windows
    },
    /** Forgets an account; its keys and data are removed by their own stores. */
    remove(id: string): boolean {
      const before = accounts.get(id)
      if (!before) return false
      accounts.delete(id)
      state.record(ACCOUNTS_TABLE, id, null, before)
      return true
    },
  }
}

export type AccountStore = ReturnType<typeof createAccountStore>

/** The User object of `/v1/user`. */
export function toUser(account: Account) {
  const { id, object, email, name, plan, created_at } = account
  return { id, object, email, name, plan, created_at }
}

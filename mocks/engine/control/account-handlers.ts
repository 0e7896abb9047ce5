import { type Account, type AccountStore, type Limits, limitsOf, type Plan } from '../accounts.ts'
import { errors } from '../api-error.ts'
import type { Clock } from '../clock.ts'
import { json } from '../json-answer.ts'
import type { KeyInput, KeyStore } from '../keys/key-store.ts'
import { assertRoom, LIMITS } from '../limits.ts'
import type { RateLimiter } from '../rate-limiter.ts'
import type { ControlHandlers } from './control-handler.ts'

export interface AccountHandlersOptions {
  accounts: AccountStore
  keys: KeyStore
  clock: Clock
  rateLimiter: RateLimiter
  /** Gives a new account its starting data (integrations, owner). */
  provisionAccount: (account: Account) => void
  /** Drops an account's resources (agents, call logs, calls, deliveries, ...) when the account is deleted. */
  deleteAccountData: (accountId: string) => void
  /** The seeded demo account, which cannot be deleted (a reset brings back its seeded state). */
  demoAccountId: () => string
}

/** The simulated dashboard's accounts and keys (`openapi/mock-control.yaml`, tags Accounts and Keys). */
export function accountHandlers(options: AccountHandlersOptions): ControlHandlers {
  const { accounts, keys, clock, rateLimiter } = options

  function account(id: string | undefined): Account {
    const found = accounts.get(id ?? '')
    if (!found) throw errors.resourceNotFound('account', id ?? '', 'account_id')
    return found
  }

  function present(found: Account) {
    const { custom_limits, ...rest } = found
    return { ...rest, limits: limitsOf(found), custom_limits: custom_limits !== null }
  }

  return {
    listAccounts: () => json(200, { object: 'list', data: accounts.list().map(present), has_more: false }),
    createAccount({ body }) {
      assertRoom(accounts.size(), LIMITS.accounts, 'accounts')
      const created = accounts.create(body as { plan: Plan; email?: string; name?: string; limits?: Limits })
      options.provisionAccount(created)
      return json(201, present(created))
    },
    getAccount: ({ params }) => json(200, present(account(params.account_id))),
    updateAccount({ params, body }) {
      const found = account(params.account_id)
      accounts.update(found.id, body as { plan?: Plan; limits?: Limits | null })
      return json(200, present(account(found.id)))
    },
    deleteAccount({ params }) {
      const found = account(params.account_id)
      if (found.id === options.demoAccountId())
        throw errors.conflict(
          'demo_account_protected',
          'The seeded demo account cannot be deleted: the mock restarts from it. POST /_mock/reset brings back its seeded state.',
          'account_id',
        )
      keys.removeAccount(found.id)
      rateLimiter.forget(found.id)
      options.deleteAccountData(found.id)
      accounts.remove(found.id)
      return json(200, { id: found.id, object: 'user', deleted: true })
    },
    getRateLimitUsage({ params }) {
      const found = account(params.account_id)
      const windows = rateLimiter.peek(found.id, accounts.windows(found), clock.now())
      return json(200, {
        object: 'rate_limit_usage',
        account_id: found.id,
        windows: windows.map((w) => ({
          policy: w.policy,
          limit: w.quota,
          used: w.quota - w.remaining,
          remaining: w.remaining,
          reset_seconds: w.reset,
        })),
      })
    },
    createKey({ params, body }) {
      const found = account(params.account_id)
      assertRoom(keys.list(found.id).length, LIMITS.keysPerAccount, 'keys per account', 'account_id')
      const result = keys.create(found.id, body as KeyInput)
      if (!result.ok)
        throw errors.validationFailed([{ param: result.param, code: result.code, message: result.message }])
      return json(201, { ...result.key, value: result.value })
    },
    listKeys: ({ params }) =>
      json(200, { object: 'list', data: keys.list(account(params.account_id).id), has_more: false }),
    revokeKey({ params }) {
      const revoked = keys.revoke(params.key_id ?? '')
      if (!revoked) throw errors.resourceNotFound('key', params.key_id ?? '', 'key_id')
      return json(200, revoked)
    },
  }
}

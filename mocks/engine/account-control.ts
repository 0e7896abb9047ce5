import type { Account, Limits, Plan } from './account-types.ts'

/**
 * What the control plane changes of an account (`PATCH /_mock/accounts/{id}`): its plan or its limits, as a new
 * record put in place of the old one (`put` records the change). The v1 API never changes an account.
 */
export function accountControl(accounts: ReadonlyMap<string, Account>, put: (account: Account) => void) {
  return {
    update(id: string, patch: { plan?: Plan; limits?: Limits | null }): Account | undefined {
      const account = accounts.get(id)
      if (!account) return undefined
      const updated = { ...account }
      if (patch.plan) updated.plan = patch.plan
      if (patch.limits !== undefined) updated.custom_limits = patch.limits
      put(updated)
      return updated
    },
  }
}

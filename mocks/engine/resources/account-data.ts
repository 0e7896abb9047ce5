import { IdempotencyStore } from '../idempotency.ts'

/** Everything one account owns besides its keys. Filled in by the resource modules. */
export interface AccountData {
  idempotency: IdempotencyStore
  [resource: string]: unknown
}

export function createAccountData(): AccountData {
  return { idempotency: new IdempotencyStore() }
}

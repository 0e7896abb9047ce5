import { errors } from './api-error.ts'

/**
 * How much the mock holds at most, so that no client can grow its memory and its state file without
 * bound. Each is documented in the contracts; reaching one is 409 `limit_reached` naming what is full,
 * and nothing is created.
 */
export const LIMITS = {
  /** Accounts of the control plane (the demo account included). */
  accounts: 1_000,
  /** API keys per account, revoked ones included (they stay listed). */
  keysPerAccount: 100,
  /** Agents per account. */
  agentsPerAccount: 1_000,
  /** Team members per account, invitations included. */
  teamMembersPerAccount: 200,
  /** Scenarios of the control plane, all accounts together. */
  scenarios: 1_000,
} as const

/** Throws 409 `limit_reached` when a collection already holds `limit` items. */
export function assertRoom(count: number, limit: number, what: string, param?: string): void {
  if (count < limit) return
  throw errors.conflict(
    'limit_reached',
    `This mock holds at most ${limit.toLocaleString('en-US')} ${what}; delete some, or POST /_mock/reset, before creating more.`,
    param,
  )
}

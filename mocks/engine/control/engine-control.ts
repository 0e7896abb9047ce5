import type { Account, AccountStore } from '../accounts.ts'
import { createCapsules } from '../capsule/create-capsules.ts'
import type { Clock } from '../clock.ts'
import type { DriftCheck } from '../contract/contract-drift.ts'
import type { OpenApiDocument } from '../contract/document.ts'
import { createRouter } from '../contract/router.ts'
import { createValidators } from '../contract/validators.ts'
import type { Journal } from '../journal.ts'
import type { KeyStore } from '../keys/key-store.ts'
import type { RateLimiter } from '../rate-limiter.ts'
import type { AccountDataStore } from '../resources/account-data.ts'
import type { Scenarios } from '../scenarios/create-scenarios.ts'
import type { DemoAccount } from '../seed/seed.ts'
import type { Simulation } from '../simulation.ts'
import { withDemoKeysOf } from '../starting-state.ts'
import type { StateSnapshot } from '../state/change-set.ts'
import type { Meta } from '../state/meta.ts'
import type { EngineState } from '../state/state.ts'
import type { EngineResponse } from '../types.ts'
import { accountHandlers } from './account-handlers.ts'
import { createControlApi } from './control-api.ts'
import { mockHandlers } from './mock-handlers.ts'
import { teamControlHandlers } from './team-control-handlers.ts'

export interface EngineControlOptions {
  /** The v1 contract (capsules' resources are checked against it) and the control plane's. */
  documents: { v1: OpenApiDocument; control: OpenApiDocument }
  drift: DriftCheck
  adminToken?: string
  allowedHosts?: readonly string[]
  pages?: Record<string, () => EngineResponse>
  seed: number
  state: EngineState
  meta: Meta
  clock: Clock
  /** What the engine started from: the seeded state a reset returns to, and the demo account. */
  start: { seeded: StateSnapshot; demo: DemoAccount }
  accounts: AccountStore
  keys: KeyStore
  data: AccountDataStore
  rateLimiter: RateLimiter
  journal: Journal
  simulation: Simulation
  scenarios: Scenarios
  provision: (account: Account) => void
}

/**
 * The engine's control plane (`/_mock`) wired to its parts: accounts and keys, the reset to the seeded state,
 * the clock and journal, capsules, calls and webhooks, scenarios; and the demo account as the state names it.
 * The v1 API shows none of it: the contract suite uses the control plane only to provision.
 */
export function engineControl(options: EngineControlOptions) {
  const { state, meta, start, accounts, keys, clock, seed } = options
  /**
   * What a reset returns to: the seeded state, with the demo keys the state names now when its demo account is
   * the seeded one (a saved state's or a capsule's keys stay valid), read from the state itself so that a change
   * a store could not keep changes no reset, and every process on a shared store resets alike.
   */
  function resetTarget(): StateSnapshot {
    const ids = meta.demo()
    if (!ids || ids.account_id !== start.demo.account.id) return start.seeded
    if (!keys.get(ids.secret_key_id) || !keys.get(ids.publishable_key_id)) return start.seeded
    return withDemoKeysOf(start.seeded, state.snapshot(), ids)
  }
  /** Back to the seeded state: the demo keys stay valid, the journal is emptied, the clock follows real time. */
  const reset = () => state.resetTo(resetTarget())
  const demoAccountId = () => meta.demo()?.account_id ?? start.demo.account.id
  const capsules = createCapsules({ state, clock, meta, document: options.documents.v1, seed })

  /** The demo account as the state names it now, with the values of its keys where this process knows them. */
  function currentDemo(): DemoAccount {
    const ids = meta.demo()
    const account = ids && accounts.get(ids.account_id)
    if (!ids || !account) return start.demo
    const known = (value: string | undefined, id: string) =>
      value !== undefined && keys.find(value)?.record.id === id ? value : undefined
    return {
      account,
      secretKeyId: ids.secret_key_id,
      publishableKeyId: ids.publishable_key_id,
      secretKey: known(start.demo.secretKey, ids.secret_key_id),
      publishableKey: known(start.demo.publishableKey, ids.publishable_key_id),
    }
  }

  const { control } = options.documents
  const { simulation, scenarios, data } = options
  const api = createControlApi({
    ...options.drift,
    router: createRouter(control),
    validators: createValidators(control),
    adminToken: options.adminToken,
    allowedHosts: options.allowedHosts,
    pages: options.pages,
    handlers: {
      ...accountHandlers({
        accounts,
        keys,
        clock,
        rateLimiter: options.rateLimiter,
        provisionAccount: options.provision,
        deleteAccountData(accountId) {
          simulation.removeAccount(accountId)
          scenarios.removeAccount(accountId)
          data.remove(accountId)
        },
        demoAccountId,
      }),
      ...teamControlHandlers({ accounts, data, clock }),
      ...mockHandlers({ clock, journal: options.journal, reset, seed }),
      ...capsules.handlers,
      ...simulation.handlers,
      ...scenarios.handlers,
    },
  })
  return { api, reset, demoAccountId, currentDemo, capsules }
}

export type EngineControl = ReturnType<typeof engineControl>

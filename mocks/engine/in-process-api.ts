import type { Account, AccountStore, Limits, Plan } from './accounts.ts'
import type { Capsule, OpenedCapsule } from './capsule/capsule.ts'
import type { TakeOptions } from './capsule/create-capsules.ts'
import type { EngineControl } from './control/engine-control.ts'
import type { KeyInput, KeyStore } from './keys/key-store.ts'
import type { StateSnapshot } from './state/change-set.ts'
import type { EngineState } from './state/state.ts'
import type { StateStore } from './state/store.ts'

export interface InProcessOptions {
  state: EngineState
  store: StateStore
  /** Runs work as one step through the store. */
  run: <T>(work: () => T) => Promise<T>
  control: EngineControl
  accounts: AccountStore
  keys: KeyStore
  provision: (account: Account) => void
}

/**
 * The platform's members for tests and adapters in the same process, beside the APIs: the reset, the state as a
 * snapshot or a capsule, a capsule opened, accounts and keys created directly. None of it is the v1 API.
 */
export function inProcessApi(options: InProcessOptions) {
  const { state, store, run, accounts, keys, provision } = options
  const { capsules, reset } = options.control
  return {
    /** Back to the seeded state, as `POST /_mock/reset` does: the demo keys stay valid. */
    reset: () => run(reset),
    /** The whole state as plain JSON (key hashes only). */
    snapshot: (): StateSnapshot => state.snapshot(),
    /**
     * The capsule of this moment, as `GET /_mock/capsule` answers it: the whole state, never a key value; the
     * webhook signing secrets only with `webhookSecrets: true`. Taken as a step (with a shared store, the
     * latest state). Rejects (409 `limit_reached` as an ApiError) when it would be over 64 MiB.
     */
    capsule: (take: TakeOptions = {}): Promise<Capsule> =>
      run(() => JSON.parse(new TextDecoder().decode(capsules.bytes(take))) as Capsule),
    /**
     * Replaces the whole state by a capsule's (its text or its value), as `POST /_mock/capsule` does: checked
     * whole first (a `CapsuleError` naming the problem, the state left as it was), then opened as one step
     * through the store, the clock set back to where the capsule's stood.
     */
    async openCapsule(capsule: unknown): Promise<OpenedCapsule> {
      const checked = capsules.check(capsule)
      return run(() => capsules.open(checked))
    },
    /** Creates an account with its starting data. */
    createAccount: (input: { plan: Plan; email?: string; name?: string; limits?: Limits }) =>
      store.run(() => {
        const account = accounts.create(input)
        provision(account)
        return account
      }),
    /** Creates a key for an account; the result holds its value, once. */
    createKey: (accountId: string, input: KeyInput) =>
      store.run(() => {
        const result = keys.create(accountId, input)
        if (!result.ok) throw new Error(result.message)
        return result
      }),
  }
}

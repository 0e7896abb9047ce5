import type { Collection } from '../collection.ts'
import type { StoredReplay } from '../idempotency.ts'
import type { EngineState } from '../state/state.ts'
import type { AccountData, IntegrationRecord } from './types.ts'

/** The state tables of the accounts' data; a record's key is `<account id>/<id>`. */
export const ACCOUNT_DATA_TABLES = {
  agents: 'agents',
  callLogs: 'call_logs',
  integrations: 'integrations',
  teamMembers: 'team_members',
  idempotency: 'idempotency',
} as const satisfies Record<keyof AccountData, string>

type Part = keyof AccountData

/** `<account id>/<id>` and back. */
const recordKey = (accountId: string, id: string) => `${accountId}/${id}`
function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/')
  return [key.slice(0, slash), key.slice(slash + 1)]
}

/** How an account's data tells the state of every change it makes to itself, by part: a change of its table. */
export function changesOf(state: EngineState, accountId: string) {
  return (part: Part) =>
    (id: string, value: unknown, before: unknown, soft = false): void =>
      state.record(ACCOUNT_DATA_TABLES[part], recordKey(accountId, id), value, before, soft)
}

/**
 * The accounts' data as five tables of the engine's state: changes made elsewhere applied to each account's
 * collections and record maps (`dataOf` makes an account's data when it has none yet), every record listed for a
 * snapshot, all forgotten on a reset; a record is its account's.
 */
export function registerAccountData(
  state: EngineState,
  byAccount: Map<string, AccountData>,
  dataOf: (accountId: string) => AccountData,
): void {
  const parts = Object.keys(ACCOUNT_DATA_TABLES) as Part[]
  for (const part of parts) {
    state.register(ACCOUNT_DATA_TABLES[part], {
      apply(key, value) {
        const [accountId, id] = splitKey(key)
        const data = dataOf(accountId)
        if (part === 'idempotency') data.idempotency.apply(id, value as StoredReplay | null)
        else if (part === 'integrations') data.integrations.apply(id, value as IntegrationRecord | null)
        else
          (data[part] as unknown as Collection<{ id: string; created_at: string }>).apply(id, value as never)
      },
      *entries() {
        for (const [accountId, data] of byAccount) {
          const records: Iterable<[string, unknown]> =
            part === 'idempotency'
              ? data.idempotency.records()
              : part === 'integrations'
                ? data.integrations.entries()
                : data[part].oldestFirst().map((item) => [item.id, item] as [string, unknown])
          for (const [id, value] of records) yield [recordKey(accountId, id), value] as [string, unknown]
        }
      },
      clear: () => byAccount.clear(),
      account: (key) => splitKey(key)[0],
    })
  }
}

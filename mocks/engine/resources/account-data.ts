import type { Account } from '../accounts.ts'
import type { Clock } from '../clock.ts'
import { Collection } from '../collection.ts'
import { IdempotencyStore, type StoredReplay } from '../idempotency.ts'
import { newId } from '../random.ts'
import { RecordMap } from '../record-map.ts'
import type { EngineState } from '../state/state.ts'
import type { Agent, CallLog, IntegrationRecord, TeamMember } from './types.ts'

/** Everything one account owns besides its keys. */
export interface AccountData {
  agents: Collection<Agent>
  callLogs: Collection<CallLog>
  /** The fixed catalog, in the contract's order; not paginated. */
  integrations: RecordMap<IntegrationRecord>
  teamMembers: Collection<TeamMember>
  idempotency: IdempotencyStore
}

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

/**
 * The data of every account, as five tables of the engine's state (agents, call logs, integrations, team
 * members, idempotency replays) kept per account in the forms that serve reads: collections with their
 * indexes, and record maps.
 */
export function createAccountDataStore(state: EngineState) {
  const byAccount = new Map<string, AccountData>()

  function create(accountId: string): AccountData {
    const tell =
      (part: Part) =>
      (id: string, value: unknown, before: unknown, soft = false): void =>
        state.record(ACCOUNT_DATA_TABLES[part], recordKey(accountId, id), value, before, soft)
    const data: AccountData = {
      agents: new Collection<Agent>([], tell('agents')),
      callLogs: new Collection<CallLog>(['agent_id'], tell('callLogs')),
      integrations: new RecordMap<IntegrationRecord>(tell('integrations')),
      teamMembers: new Collection<TeamMember>([], tell('teamMembers')),
      idempotency: new IdempotencyStore(tell('idempotency')),
    }
    byAccount.set(accountId, data)
    return data
  }

  /** An account's data, empty when it has none yet. */
  function dataOf(accountId: string): AccountData {
    return byAccount.get(accountId) ?? create(accountId)
  }

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

  return {
    /** An account's data if it has any. */
    get: (accountId: string) => byAccount.get(accountId),
    dataOf,

    /**
     * A new account's starting data, recorded as changes: every integration of the catalog not connected,
     * and the account's owner as its first team member.
     */
    provision(
      account: Account,
      clock: Clock,
      integrations: readonly { id: IntegrationRecord['id']; name: string }[],
    ): AccountData {
      const data = dataOf(account.id)
      const now = clock.iso()
      for (const { id, name } of integrations)
        data.integrations.put(id, {
          id,
          object: 'integration',
          name,
          enabled: false,
          status: 'not_connected',
          config: {},
          credential_hint: null,
          connected_at: null,
          updated_at: now,
        })
      data.teamMembers.put({
        id: newId('mem'),
        object: 'team_member',
        email: account.email.toLowerCase(),
        name: account.name,
        role: 'owner',
        status: 'active',
        invited_at: null,
        joined_at: account.created_at,
        created_at: account.created_at,
      })
      return data
    },

    /** Deletes every record of an account's data, recorded as changes. */
    remove(accountId: string): void {
      const data = byAccount.get(accountId)
      if (!data) return
      for (const agent of [...data.agents.oldestFirst()]) data.agents.remove(agent.id)
      for (const log of [...data.callLogs.oldestFirst()]) data.callLogs.remove(log.id)
      for (const member of [...data.teamMembers.oldestFirst()]) data.teamMembers.remove(member.id)
      for (const id of [...data.integrations.keys()]) data.integrations.delete(id)
      data.idempotency.removeAll()
      byAccount.delete(accountId)
    },
  }
}

export type AccountDataStore = ReturnType<typeof createAccountDataStore>

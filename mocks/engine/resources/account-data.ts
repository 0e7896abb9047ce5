import type { Account } from '../accounts.ts'
import { Collection } from '../collection.ts'
import { IdempotencyStore } from '../idempotency.ts'
import { newId } from '../random.ts'
import { RecordMap } from '../record-map.ts'
import type { EngineState } from '../state/state.ts'
import { changesOf, registerAccountData } from './account-data-tables.ts'
import type { AccountData, Agent, CallLog, IntegrationRecord, TeamMember } from './types.ts'

export { ACCOUNT_DATA_TABLES } from './account-data-tables.ts'
export type { AccountData } from './types.ts'

/**
 * The data of every account, as five tables of the engine's state (agents, call logs, integrations, team
 * members, idempotency replays) kept per account in the forms that serve reads: collections with their
 * indexes, and record maps.
 */
export function createAccountDataStore(state: EngineState) {
  const byAccount = new Map<string, AccountData>()

  function create(accountId: string): AccountData {
    const tell = changesOf(state, accountId)
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

  registerAccountData(state, byAccount, dataOf)

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
      integrations: readonly { id: IntegrationRecord['id']; name: string }[],
    ): AccountData {
      const data = dataOf(account.id)
      // The catalog comes with the account, in the instant it was made (not in a later reading of the clock: a
      // second may have turned while the account was answered).
      const now = account.created_at
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

import type { Account } from '../accounts.ts'
import type { Clock } from '../clock.ts'
import { Collection } from '../collection.ts'
import { IdempotencyStore, type StoredReplay } from '../idempotency.ts'
import { newId } from '../random.ts'
import type { Agent, CallLog, IntegrationRecord, TeamMember } from './types.ts'

/** Everything one account owns besides its keys. */
export interface AccountData {
  agents: Collection<Agent>
  callLogs: Collection<CallLog>
  /** The fixed catalog, in the contract's order; not paginated. */
  integrations: Map<string, IntegrationRecord>
  teamMembers: Collection<TeamMember>
  idempotency: IdempotencyStore
}

/** The plain-JSON form of an account's data, for snapshots and the state file. */
export interface AccountDataSnapshot {
  agents: Agent[]
  callLogs: CallLog[]
  integrations: IntegrationRecord[]
  teamMembers: TeamMember[]
  idempotency: [string, StoredReplay][]
}

export function createAccountData(): AccountData {
  return {
    agents: new Collection<Agent>(),
    callLogs: new Collection<CallLog>(['agent_id']),
    integrations: new Map<string, IntegrationRecord>(),
    teamMembers: new Collection<TeamMember>(),
    idempotency: new IdempotencyStore(),
  }
}

/** A new account's starting data: every integration not connected, and its owner as a team member. */
export function provisionAccountData(
  account: Account,
  clock: Clock,
  integrations: readonly { id: IntegrationRecord['id']; name: string }[],
): AccountData {
  const data = createAccountData()
  const now = clock.iso()
  for (const { id, name } of integrations) {
    data.integrations.set(id, {
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
  }
  data.teamMembers.insert({
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
}

/**
 * A copy of the data that later requests cannot change. Call logs are never modified in place (only
 * deleted), so they are shared rather than copied: a snapshot of 100,000 logs stays cheap.
 */
export function snapshotAccountData(data: AccountData): AccountDataSnapshot {
  return {
    agents: structuredClone([...data.agents.values()]),
    callLogs: [...data.callLogs.values()],
    integrations: structuredClone([...data.integrations.values()]),
    teamMembers: structuredClone([...data.teamMembers.values()]),
    idempotency: structuredClone(data.idempotency.dump()),
  }
}

export function restoreAccountData(snapshot: AccountDataSnapshot): AccountData {
  const data = createAccountData()
  data.agents.load(structuredClone(snapshot.agents))
  data.callLogs.load(snapshot.callLogs)
  for (const integration of structuredClone(snapshot.integrations))
    data.integrations.set(integration.id, integration)
  data.teamMembers.load(structuredClone(snapshot.teamMembers))
  data.idempotency.restore(structuredClone(snapshot.idempotency))
  return data
}

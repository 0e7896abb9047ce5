import { sha256Hex } from '../../engine/secrets.ts'
import type { StateSnapshot } from '../../engine/state/change-set.ts'

/** The whole-state file of voice-api-kit 0.1 (`--state-file`, version 1). */
interface LegacyState {
  version: 1
  seed: number
  clock_offset_seconds: number
  demo: { account_id: string; secret_key_id: string; publishable_key_id: string }
  accounts: { id: string }[]
  keys: { record: { id: string }; hash: string }[]
  data: Record<
    string,
    {
      agents: { id: string }[]
      callLogs: { id: string }[]
      integrations: { id: string }[]
      teamMembers: { id: string }[]
      idempotency: [string, { fingerprint: string; result: unknown; expiresAt: number }][]
    }
  >
}

/**
 * A version-1 state file as a state of this version: the same records in tables, and the idempotency replays
 * under digests of their keys and requests (version 1 kept both as sent). Throws `fail(problem)` when the
 * value is not a version-1 state.
 */
export function fromLegacyState(value: unknown, fail: (problem: string) => Error): StateSnapshot {
  const legacy = value as LegacyState
  if (legacy?.version !== 1)
    throw fail(`it is JSON but not a state file of this mock (version ${String(legacy?.version)})`)
  for (const field of ['accounts', 'keys'] as const)
    if (!Array.isArray(legacy[field])) throw fail(`its field '${field}' is not a list`)
  if (typeof legacy.data !== 'object' || legacy.data === null) throw fail("its field 'data' is not an object")
  const tables: StateSnapshot['tables'] = {
    meta: [['demo', { ...legacy.demo, seed: legacy.seed }]],
    clock: [['offset', legacy.clock_offset_seconds ?? 0]],
    accounts: legacy.accounts.map((account) => [account.id, account]),
    keys: legacy.keys.map((stored) => [stored.record?.id, stored]),
    agents: [],
    call_logs: [],
    integrations: [],
    team_members: [],
    idempotency: [],
  }
  for (const [accountId, data] of Object.entries(legacy.data)) {
    const put = (table: string, items: { id: string }[] | undefined) => {
      if (!Array.isArray(items)) throw fail(`its account '${accountId}' has no '${table}' list`)
      for (const item of items) tables[table]?.push([`${accountId}/${item.id}`, item])
    }
    put('agents', data.agents)
    put('call_logs', data.callLogs)
    put('integrations', data.integrations)
    put('team_members', data.teamMembers)
    for (const [key, replay] of data.idempotency ?? [])
      tables.idempotency?.push([
        `${accountId}/${sha256Hex(key)}`,
        {
          fingerprint: sha256Hex(replay.fingerprint),
          result: replay.result,
          expiresAt: replay.expiresAt,
          bytes: JSON.stringify(replay.result).length,
        },
      ])
  }
  return { version: 2, tables }
}

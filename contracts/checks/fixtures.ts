import type { Contract } from '../contract/contract.ts'
import { resolveRef } from '../contract/load-contract.ts'
import type { MockControl } from '../provision/mock-control.ts'
import { expectStatus, jsonObject } from './failure.ts'
import type { CheckContext } from './types.ts'

/** IDs of the right shape that no implementation holds (404 material). */
export const UNKNOWN_IDS: Record<string, string> = {
  agent_id: 'agt_0ContractSuiteNone0',
  call_log_id: 'call_0ContractSuiteNone0',
  member_id: 'mem_0ContractSuiteNone0',
  integration_id: 'not_a_provider',
}

/** The smallest example request body the contract gives for an operation (a valid body). */
export function exampleBody(contract: Contract, operationId: string): Record<string, unknown> {
  const examples = contract.operation(operationId).requestBody?.examples ?? []
  const objects = examples.filter((e): e is Record<string, unknown> => !!e && typeof e === 'object')
  const smallest = objects.sort((a, b) => Object.keys(a).length - Object.keys(b).length)[0]
  if (!smallest) throw new Error(`The contract gives no example body for ${operationId}.`)
  return structuredClone(smallest)
}

let serial = 0

/** A valid create-agent body, tagged with the run id (name and metadata) so its origin is plain. */
export function agentBody(ctx: CheckContext, extra: Record<string, unknown> = {}): Record<string, unknown> {
  serial++
  return {
    ...exampleBody(ctx.contract, 'createAgent'),
    name: `Contract suite ${ctx.runId} #${serial}`,
    metadata: { contract_suite_run: ctx.runId },
    ...extra,
  }
}

/** A valid invite body with a tagged, unique e-mail address. */
export function inviteBody(ctx: CheckContext, extra: Record<string, unknown> = {}): Record<string, unknown> {
  serial++
  return {
    ...exampleBody(ctx.contract, 'inviteTeamMember'),
    email: `contract-suite+${ctx.runId}-${serial}@example.com`,
    ...extra,
  }
}

/** Creates an agent (tracked for teardown) and returns it. */
export async function createAgent(ctx: CheckContext, extra: Record<string, unknown> = {}) {
  const exchange = await ctx.call({
    method: 'POST',
    path: '/agents',
    json: agentBody(ctx, extra),
    operationId: 'createAgent',
  })
  expectStatus(exchange, 201, 'for a valid create-agent body')
  return { agent: jsonObject(exchange), exchange }
}

/** Invites a team member (tracked for teardown) and returns it. */
export async function inviteMember(ctx: CheckContext, extra: Record<string, unknown> = {}) {
  const exchange = await ctx.call({
    method: 'POST',
    path: '/team-members',
    json: inviteBody(ctx, extra),
    operationId: 'inviteTeamMember',
  })
  expectStatus(exchange, 201, 'for a valid invitation')
  return { member: jsonObject(exchange), exchange }
}

/**
 * The `default` of every property of a request schema that has one, nested objects included, read from the
 * contract: `{ status: 'active', voice: { speed: 1 }, ... }`.
 */
export function schemaDefaults(contract: Contract, schema: unknown): Record<string, unknown> {
  const resolved = resolveRef<{ properties?: Record<string, unknown> }>(contract.document, schema)
  const out: Record<string, unknown> = {}
  for (const [name, property] of Object.entries(resolved.properties ?? {})) {
    const prop = resolveRef<{ default?: unknown; allOf?: unknown[]; properties?: unknown }>(
      contract.document,
      property,
    )
    if (prop.default !== undefined) out[name] = structuredClone(prop.default)
    else if (prop.properties) {
      const nested = schemaDefaults(contract, prop)
      if (Object.keys(nested).length > 0) out[name] = nested
    }
  }
  return out
}

/**
 * A fresh enterprise account on the mock, named for the run and `label` (the name keys made for it take too),
 * deleted in teardown.
 */
export async function scratchAccount(ctx: CheckContext, mock: MockControl, label: string) {
  const name = `Contract suite ${ctx.runId} ${label}`
  const account = await mock.createAccount({ plan: 'enterprise', name })
  ctx.defer(async () => {
    await mock.deleteAccount(account.id)
  })
  return { account, name }
}

/** Reads served from the account with call logs (its key may only read): the key the run reads them with. */
export const CALL_LOG_READS: ReadonlySet<string> = new Set(['listCallLogs', 'getCallLog', 'getCallAnalytics'])

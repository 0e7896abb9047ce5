import type { Exchange } from '../http/exchange.ts'
import { ensure, expectStatus, jsonObject } from './failure.ts'
import { createAgent, inviteMember } from './fixtures.ts'
import { instant, letTimePass, type TargetTime, timed } from './time-passes.ts'
import type { ContractCheck } from './types.ts'

/** Seconds between the steps that must differ: more than timestamps with whole seconds can blur. */
const GAP_SECONDS = 2
/** How far "now" in a timestamp may be from the target's clock: whole seconds, rounded either way. */
const ROUNDING_MS = 1000

/** Fails unless the field holds the same instant in both objects (any allowed form of the timestamp). */
function expectSameInstant(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  field: string,
  exchange: Exchange,
): void {
  ensure(
    instant(after[field]) === instant(before[field]),
    `${field} kept (${String(before[field])})`,
    String(after[field]),
    exchange,
  )
}

/** Fails unless the field moved forward by at least the gap the check let pass. */
function expectMovedOn(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  field: string,
  exchange: Exchange,
): void {
  const moved = instant(after[field]) - instant(before[field])
  ensure(
    moved >= (GAP_SECONDS - 1) * 1000,
    `${field} later than ${String(before[field])} by about ${GAP_SECONDS} s (the time that passed)`,
    String(after[field]),
    exchange,
  )
}

/**
 * Fails unless the field is the target's "now" when it answered (`at`, read from the target's clock around the
 * request); nothing to compare when the target tells no time.
 */
function expectNow(
  object: Record<string, unknown>,
  field: string,
  exchange: Exchange,
  at: TargetTime | undefined,
): void {
  if (!at) return
  const value = instant(object[field])
  ensure(
    value >= at.from - ROUNDING_MS && value < at.until + ROUNDING_MS,
    `${field} = the target's current time when it answered (from ${iso(at.from)} to ${iso(at.until)} by its clock)`,
    String(object[field]),
    exchange,
  )
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z')

const agentTimestamps: ContractCheck = {
  id: 'resources/agents/timestamps',
  area: 'resources',
  group: 'Agents',
  title:
    'keeps created_at and sets updated_at to now on every PATCH, also one that changes no value, with time passing between',
  needs: ['write'],
  exclusive: true,
  async run(ctx) {
    const { exchange: created, at } = await timed(ctx, async () => (await createAgent(ctx)).exchange)
    const agent = jsonObject(created)
    ensure(
      instant(agent.updated_at) === instant(agent.created_at),
      'updated_at = created_at on a new agent',
      `${String(agent.updated_at)} vs ${String(agent.created_at)}`,
      created,
    )
    expectNow(agent, 'created_at', created, at)
    const path = `/agents/${String(agent.id)}`
    let previous = agent
    for (const [what, change] of [
      ['a new name', { name: `${String(agent.name)} (renamed)` }],
      ['the same name again (no value changes)', { name: `${String(agent.name)} (renamed)` }],
    ] as const) {
      const moved = await letTimePass(ctx, GAP_SECONDS)
      const { exchange: updated, at } = await timed(
        ctx,
        () => ctx.call({ method: 'PATCH', path, json: change, operationId: 'updateAgent' }),
        moved,
      )
      expectStatus(updated, 200, `for a PATCH with ${what}`)
      const after = jsonObject(updated)
      expectSameInstant(agent, after, 'created_at', updated)
      expectMovedOn(previous, after, 'updated_at', updated)
      expectNow(after, 'updated_at', updated, at)
      previous = after
    }
    const read = await ctx.call({ method: 'GET', path, operationId: 'getAgent' })
    expectStatus(read, 200)
    expectSameInstant(previous, jsonObject(read), 'updated_at', read)
    expectSameInstant(agent, jsonObject(read), 'created_at', read)
  },
}

const memberTimestamps: ContractCheck = {
  id: 'resources/team-members/timestamps',
  area: 'resources',
  group: 'Team members',
  title: 'sets invited_at = created_at = now on invitation and keeps both when the role changes later',
  needs: ['write'],
  exclusive: true,
  async run(ctx) {
    const { exchange: created, at } = await timed(ctx, async () => (await inviteMember(ctx)).exchange)
    const member = jsonObject(created)
    expectNow(member, 'created_at', created, at)
    await letTimePass(ctx, GAP_SECONDS)
    const path = `/team-members/${String(member.id)}`
    const changed = await ctx.call({
      method: 'PATCH',
      path,
      json: { role: member.role === 'admin' ? 'editor' : 'admin' },
      operationId: 'updateTeamMember',
    })
    expectStatus(changed, 200)
    const after = jsonObject(changed)
    for (const field of ['created_at', 'invited_at', 'joined_at'])
      ensure(
        JSON.stringify(instant(after[field])) === JSON.stringify(instant(member[field])),
        `${field} kept (${String(member[field])})`,
        String(after[field]),
        changed,
      )
  },
}

const integrationTimestamps: ContractCheck = {
  id: 'resources/integrations/timestamps',
  area: 'resources',
  group: 'Integrations',
  title:
    'sets updated_at to now on every update and connected_at only when credentials are sent (not on a toggle or a configuration change), with time passing between',
  needs: ['write', 'own-account'],
  exclusive: true,
  async run(ctx) {
    const path = '/integrations/zapier'
    const patch = (json: Record<string, unknown>, sensitive: string[] = []) =>
      ctx.call({ method: 'PATCH', path, json, sensitive, operationId: 'updateIntegration' })
    const secret = `contract-${ctx.runId}-ZapierKey7Qx`
    const { exchange: connected, at: connectedAt } = await timed(ctx, () =>
      patch({ credentials: { api_key: secret } }, [secret]),
    )
    expectStatus(connected, 200)
    const first = jsonObject(connected)
    expectNow(first, 'connected_at', connected, connectedAt)
    expectNow(first, 'updated_at', connected, connectedAt)
    const toggledFrom = await letTimePass(ctx, GAP_SECONDS)
    const { exchange: toggled, at: toggledAt } = await timed(
      ctx,
      () => patch({ enabled: !first.enabled }),
      toggledFrom,
    )
    expectStatus(toggled, 200)
    const second = jsonObject(toggled)
    expectSameInstant(first, second, 'connected_at', toggled)
    expectMovedOn(first, second, 'updated_at', toggled)
    expectNow(second, 'updated_at', toggled, toggledAt)
    // A change of the configuration alone stores no credentials either.
    const configuredFrom = await letTimePass(ctx, GAP_SECONDS)
    const config = { ...(second.config as Record<string, unknown>), contract_note: `timestamps ${ctx.runId}` }
    const { exchange: configured } = await timed(ctx, () => patch({ config }), configuredFrom)
    expectStatus(configured, 200)
    expectSameInstant(first, jsonObject(configured), 'connected_at', configured)
    expectMovedOn(second, jsonObject(configured), 'updated_at', configured)
    const againFrom = await letTimePass(ctx, GAP_SECONDS)
    const { exchange: again, at: againAt } = await timed(
      ctx,
      () => patch({ credentials: { api_key: `${secret}2` } }, [secret, `${secret}2`]),
      againFrom,
    )
    expectStatus(again, 200)
    const third = jsonObject(again)
    expectMovedOn(second, third, 'connected_at', again)
    expectNow(third, 'connected_at', again, againAt)
    const restored = await patch({ credentials: null, enabled: first.enabled, config: first.config })
    expectStatus(restored, 200)
  },
}

/** Timestamps that must differ between steps, with time made to pass between them. */
export const timestampChecks: ContractCheck[] = [agentTimestamps, memberTimestamps, integrationTimestamps]

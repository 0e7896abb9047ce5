import { errors } from '../api-error.ts'
import type { Collection } from '../collection.ts'
import type { ApiKey } from '../keys/key-store.ts'
import { assertRoom, LIMITS } from '../limits.ts'
import { SENSITIVE_AGENT_FIELDS } from '../permissions.ts'
import { newId } from '../random.ts'
import { type Handlers, type OperationContext, pathParam } from './operation-handler.ts'
import { listPage } from './pagination.ts'
import type { Agent } from './types.ts'

export const agentsOf = (ctx: OperationContext) => ctx.data.agents as Collection<Agent>

/** An agent as a key may see it: publishable keys never see the sensitive fields. */
export function presentAgent(agent: Agent, key: ApiKey): Partial<Agent> {
  // A copy: later changes to the stored agent never reach a response already handed out.
  const visible: Partial<Agent> = { ...agent }
  if (key.type !== 'publishable') return visible
  for (const field of SENSITIVE_AGENT_FIELDS) delete visible[field]
  return visible
}

/** Nested objects that PATCH merges field by field; everything else is replaced, `null` clears. */
const MERGED_FIELDS = new Set(['voice', 'llm'])

function findAgent(ctx: OperationContext): Agent {
  const agent = agentsOf(ctx).get(pathParam(ctx, 'agent_id'))
  if (!agent) throw errors.resourceNotFound('agent', pathParam(ctx, 'agent_id'), 'agent_id')
  return agent
}

/** Behaviour of the agent operations. */
export function agentHandlers(): Handlers {
  return {
    listAgents: {
      run: (ctx) => ({
        status: 200,
        body: listPage(agentsOf(ctx), ctx.query, { present: (agent) => presentAgent(agent, ctx.key) }),
      }),
    },
    createAgent: {
      run(ctx) {
        const now = ctx.clock.iso()
        // The body arrives validated, with the contract's defaults filled in.
        assertRoom(agentsOf(ctx).size, LIMITS.agentsPerAccount, 'agents per account')
        const input = ctx.body as Record<string, unknown>
        const agent = {
          id: newId('agt'),
          object: 'agent',
          ...input,
          created_at: now,
          updated_at: now,
        } as Agent
        agentsOf(ctx).put(agent)
        return {
          status: 201,
          body: presentAgent(agent, ctx.key),
          headers: { location: `${ctx.baseUrl}/agents/${agent.id}` },
        }
      },
    },
    getAgent: {
      load: findAgent,
      run: (ctx, agent: Agent) => ({ status: 200, body: presentAgent(agent, ctx.key) }),
    },
    updateAgent: {
      load: findAgent,
      run(ctx, agent: Agent) {
        const changes = ctx.body as Record<string, unknown>
        const updated: Record<string, unknown> = { ...agent }
        for (const [field, value] of Object.entries(changes)) {
          const current = updated[field]
          updated[field] =
            MERGED_FIELDS.has(field) &&
            value &&
            typeof value === 'object' &&
            current &&
            typeof current === 'object'
              ? { ...current, ...value }
              : value
        }
        updated.updated_at = ctx.clock.iso()
        const stored = updated as Agent
        agentsOf(ctx).put(stored)
        return { status: 200, body: presentAgent(stored, ctx.key) }
      },
    },
    deleteAgent: {
      load: findAgent,
      run(ctx, agent: Agent) {
        agentsOf(ctx).remove(agent.id)
        return { status: 200, body: { id: agent.id, object: 'agent', deleted: true } }
      },
    },
  }
}

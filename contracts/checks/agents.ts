import { ensure, expectError, expectStatus, type fail, jsonObject, listData } from './failure.ts'
import { agentBody, createAgent, schemaDefaults, UNKNOWN_IDS } from './fixtures.ts'
import { instant, locates } from './formats.ts'
import type { ContractCheck } from './types.ts'

/** Fails unless every field of `want` (deeply) equals the same field of `got`. */
export function expectFields(
  got: Record<string, unknown>,
  want: Record<string, unknown>,
  what: string,
  exchange: Parameters<typeof fail>[2],
): void {
  for (const [field, value] of Object.entries(want)) {
    const actual = got[field]
    if (value && typeof value === 'object' && !Array.isArray(value) && actual && typeof actual === 'object') {
      expectFields(
        actual as Record<string, unknown>,
        value as Record<string, unknown>,
        `${what}.${field}`,
        exchange,
      )
      continue
    }
    ensure(
      JSON.stringify(actual) === JSON.stringify(value),
      `${what}.${field} = ${JSON.stringify(value)}`,
      JSON.stringify(actual),
      exchange,
    )
  }
}

const group = 'Agents'

/** Agents: create (defaults, Location), read, partial update, delete and 404 after it. */
export const agentChecks: ContractCheck[] = [
  {
    id: 'resources/agents/create-read',
    area: 'resources',
    group,
    title:
      'creates an agent (201, Location, defaults from the contract, metadata keys in their case, webhook_events in the order sent) and reads back the same agent',
    needs: ['write'],
    async run(ctx) {
      // Metadata keys that differ only in case are two keys; webhook_events come back in the order sent.
      const body = agentBody(ctx, {
        metadata: { contract_suite_run: ctx.runId, Region: 'eu', region: 'us' },
        webhook_events: ['transcript.ready', 'call.started'],
      })
      const created = await ctx.call({
        method: 'POST',
        path: '/agents',
        json: body,
        operationId: 'createAgent',
      })
      expectStatus(created, 201)
      const agent = jsonObject(created)
      const location = created.response.headers.location
      ensure(
        locates(location, created.request.url, `/agents/${String(agent.id)}`),
        `a Location (absolute or relative) resolving to .../agents/${String(agent.id)}`,
        JSON.stringify(location ?? null),
        created,
      )
      const defaults = schemaDefaults(ctx.contract, ctx.contract.operation('createAgent').requestBody?.schema)
      const expected = mergeDefaults(defaults, body)
      expectFields(agent, expected, 'agent', created)
      const read = await ctx.call({
        method: 'GET',
        path: `/agents/${String(agent.id)}`,
        operationId: 'getAgent',
      })
      expectStatus(read, 200)
      ensure(
        JSON.stringify(jsonObject(read)) === JSON.stringify(agent),
        'GET to return the agent as created',
        'a different agent',
        read,
      )
      const list = await ctx.call({ method: 'GET', path: '/agents?limit=100', operationId: 'listAgents' })
      ensure(
        listData(list).some((a) => a.id === agent.id),
        'the new agent in the first page of the list (newest first)',
        'not listed',
        list,
      )
    },
  },
  {
    id: 'resources/agents/update',
    area: 'resources',
    group,
    title:
      'updates only the fields sent, merges voice and llm, clears a nullable field with null, and lists the agent as updated',
    needs: ['write'],
    async run(ctx) {
      const { agent } = await createAgent(ctx, {
        description: 'Contract suite description',
        first_message: 'Hello from the contract suite.',
      })
      const id = String(agent.id)
      const changes = {
        name: `${String(agent.name)} (renamed)`,
        voice: { speed: 1.25 },
        llm: { temperature: 0.25 },
        description: null,
      }
      const updated = await ctx.call({
        method: 'PATCH',
        path: `/agents/${id}`,
        json: changes,
        operationId: 'updateAgent',
      })
      expectStatus(updated, 200)
      const after = jsonObject(updated)
      const voice = agent.voice as Record<string, unknown>
      const llm = agent.llm as Record<string, unknown>
      expectFields(
        after,
        { ...changes, voice: { ...voice, speed: 1.25 }, llm: { ...llm, temperature: 0.25 } },
        'agent',
        updated,
      )
      for (const field of [
        'status',
        'language',
        'first_message',
        'first_speaker',
        'metadata',
        'created_at',
        'webhook_events',
      ])
        ensure(
          JSON.stringify(after[field]) === JSON.stringify(agent[field]),
          `${field} unchanged`,
          JSON.stringify(after[field]),
          updated,
        )
      ensure(
        instant(after.updated_at) >= instant(agent.updated_at),
        'updated_at not before the previous one',
        String(after.updated_at),
        updated,
      )
      const read = await ctx.call({ method: 'GET', path: `/agents/${id}`, operationId: 'getAgent' })
      ensure(
        JSON.stringify(jsonObject(read)) === JSON.stringify(after),
        'GET to return the updated agent',
        'a different agent',
        read,
      )
      // The list shows the agent as it is now, once, where it was (its created_at and id did not change).
      const list = await ctx.call({ method: 'GET', path: '/agents?limit=100', operationId: 'listAgents' })
      const listed = listData(list).filter((a) => a.id === id)
      ensure(
        listed.length === 1 && JSON.stringify(listed[0]) === JSON.stringify(after),
        'the list to hold the updated agent, once',
        listed.length === 1 ? JSON.stringify(listed[0]).slice(0, 200) : `${listed.length} entries`,
        list,
      )
    },
  },
  {
    id: 'resources/agents/order-after-update',
    area: 'resources',
    group,
    title:
      'keeps an updated agent where it was in the list (newest first by created_at, then id): an update does not make it newer',
    needs: ['write'],
    async run(ctx) {
      // listAgents: "newest first (`created_at` descending, then `id` descending)": neither changes on PATCH.
      const made = [String((await createAgent(ctx)).agent.id), String((await createAgent(ctx)).agent.id)]
      const order = async (why: string) => {
        const list = await ctx.call({
          method: 'GET',
          path: '/agents?limit=100',
          operationId: 'listAgents',
          fresh: true,
        })
        expectStatus(list, 200, why)
        return {
          ids: listData(list)
            .map((a) => String(a.id))
            .filter((id) => made.includes(id)),
          list,
        }
      }
      const before = await order('for the list of agents')
      const older = before.ids.at(-1) as string
      // An update in the second of the creations could not move anything: the update comes a second later.
      await ctx.wait(1, "a second to pass, so that the update comes after the agents' creation")
      const updated = await ctx.call({
        method: 'PATCH',
        path: `/agents/${older}`,
        json: { name: 'Contract suite (updated later)' },
        operationId: 'updateAgent',
      })
      expectStatus(updated, 200, `for PATCH /agents/${older}`)
      const after = await order('for the list of agents after the update')
      ensure(
        after.ids.join() === before.ids.join(),
        `the two agents in the order they had (${before.ids.join(', ')}): the one updated (${older}) not moved`,
        after.ids.join(', '),
        after.list,
      )
    },
  },
  {
    id: 'resources/agents/delete',
    area: 'resources',
    group,
    title: 'deletes an agent, then answers 404 to GET, PATCH and DELETE and leaves it out of the list',
    needs: ['write'],
    async run(ctx) {
      const { agent } = await createAgent(ctx)
      const path = `/agents/${String(agent.id)}`
      const deleted = await ctx.call({ method: 'DELETE', path, operationId: 'deleteAgent' })
      expectStatus(deleted, 200)
      expectFields(jsonObject(deleted), { id: agent.id, object: 'agent', deleted: true }, 'deleted', deleted)
      ctx.untrack(path)
      const notFound = { type: 'not_found_error', code: 'resource_not_found', param: 'agent_id' }
      expectError(
        await ctx.call({ method: 'GET', path, operationId: 'getAgent' }),
        404,
        notFound,
        'after DELETE',
      )
      expectError(
        await ctx.call({ method: 'PATCH', path, json: { name: 'x' }, operationId: 'updateAgent' }),
        404,
        notFound,
        'after DELETE',
      )
      expectError(
        await ctx.call({ method: 'DELETE', path, operationId: 'deleteAgent' }),
        404,
        notFound,
        'for a second DELETE',
      )
      const list = await ctx.call({ method: 'GET', path: '/agents?limit=100', operationId: 'listAgents' })
      ensure(
        !listData(list).some((a) => a.id === agent.id),
        'the deleted agent absent from the list',
        'still listed',
        list,
      )
    },
  },
  {
    id: 'resources/agents/unknown',
    area: 'resources',
    group,
    title:
      'answers 404 resource_not_found for an unknown or malformed agent ID, an API key pasted as the ID (percent-encoded) never echoed',
    async run(ctx) {
      // The malformed ID is the run's own key: whatever the message says of the ID, it may show at most the
      // key's prefix and last 4 characters (docs/decisions/002-authentication.md; every response is searched for the key).
      // Its first letter is percent-encoded twice (`%2573` is `%73`, which is `s`): a key pasted from an
      // encoded URL is still the key, and a message that shows it decoded, half-decoded or as sent shows
      // its random part all the same.
      const key = ctx.keys.secret
      const pasted = `%25${key.charCodeAt(0).toString(16)}${key.slice(1)}`
      for (const id of [UNKNOWN_IDS.agent_id, pasted]) {
        const exchange = await ctx.call({
          method: 'GET',
          path: `/agents/${id}`,
          operationId: 'getAgent',
          sensitive: [key],
        })
        expectError(
          exchange,
          404,
          { type: 'not_found_error', code: 'resource_not_found', param: 'agent_id' },
          id === pasted ? 'for the API key (percent-encoded) as the ID' : `for ${id}`,
        )
      }
    },
  },
]

/** A create body with the contract's defaults under it (nested objects merged field by field). */
export function mergeDefaults(
  defaults: Record<string, unknown>,
  body: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...defaults }
  for (const [key, value] of Object.entries(body)) {
    const base = out[key]
    out[key] =
      base &&
      typeof base === 'object' &&
      !Array.isArray(base) &&
      value &&
      typeof value === 'object' &&
      !Array.isArray(value)
        ? { ...base, ...value }
        : value
  }
  return out
}

import { bodyAtEdge, type Edge } from '../contract/extremes.ts'
import { resolveRef } from '../contract/load-contract.ts'
import { expectFields, mergeDefaults } from './agents.ts'
import { ensure, expectStatus, jsonObject } from './failure.ts'
import { agentBody, createAgent, inviteBody, schemaDefaults } from './fixtures.ts'
import type { CheckContext, ContractCheck } from './types.ts'

const EDGES: Edge[] = ['lowest', 'highest']

/** An operation whose body the check sends at both edges, and where the object it makes or changes is read. */
interface BoundedWrite {
  operationId: string
  group: string
  /** The valid body the edges start from. */
  base: (ctx: CheckContext) => Record<string, unknown>
  /** The path to send to (an object made for an update). */
  path: (ctx: CheckContext) => Promise<string>
  /** The path the object is read back from, given the answer. */
  readPath: (object: Record<string, unknown>) => string
  status: number
  /** What the answer must show: the body with the contract's defaults under it (a create) or the body. */
  expected: (ctx: CheckContext, body: Record<string, unknown>) => Record<string, unknown>
}

const createDefaults = (ctx: CheckContext, operationId: string, body: Record<string, unknown>) =>
  mergeDefaults(schemaDefaults(ctx.contract, ctx.contract.operation(operationId).requestBody?.schema), body)

const WRITES: BoundedWrite[] = [
  {
    operationId: 'createAgent',
    group: 'Agents',
    base: (ctx) => agentBody(ctx),
    path: async () => '/agents',
    readPath: (agent) => `/agents/${String(agent.id)}`,
    status: 201,
    expected: (ctx, body) => createDefaults(ctx, 'createAgent', body),
  },
  {
    operationId: 'updateAgent',
    group: 'Agents',
    // Every field of the create body is one the update takes too (`voice` and `llm` merged into the stored ones).
    base: (ctx) => {
      const { name, description, system_prompt, first_message, voice, llm, metadata } = agentBody(ctx)
      const fields = { name, description, system_prompt, first_message, voice, llm, metadata }
      return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))
    },
    path: async (ctx) => `/agents/${String((await createAgent(ctx)).agent.id)}`,
    readPath: (agent) => `/agents/${String(agent.id)}`,
    status: 200,
    expected: (_, body) => body,
  },
  {
    operationId: 'inviteTeamMember',
    group: 'Team members',
    base: (ctx) => inviteBody(ctx),
    path: async () => '/team-members',
    readPath: (member) => `/team-members/${String(member.id)}`,
    status: 201,
    expected: (ctx, body) => createDefaults(ctx, 'inviteTeamMember', body),
  },
]

/**
 * The bounds of the contract's schemas are inclusive (JSON Schema draft 2020-12, 6.2 and 6.3): a body with every
 * bounded field at its lowest allowed value, and one with every field at its highest (numbers at `minimum` and
 * `maximum`, text of `minLength` and `maxLength` characters, maps of `maxProperties` entries with keys and values
 * as long as allowed, arrays of `maxItems` items), is accepted, answered as sent and read back so. A target that
 * checks a bound with `<` where `<=` is meant refuses one of them with 422 naming the field.
 */
function atTheBounds(write: BoundedWrite): ContractCheck {
  return {
    id: `bad-input/${write.operationId}/at-the-bounds`,
    area: 'bad-input',
    group: write.operationId,
    title:
      'accepts a body with every bounded field at its lowest allowed value, and one at its highest, as sent',
    needs: ['write'],
    async run(ctx) {
      const operation = ctx.contract.operation(write.operationId)
      for (const edge of EDGES) {
        const path = await write.path(ctx)
        const body = bodyAtEdge(ctx.contract.document, operation.requestBody?.schema, write.base(ctx), edge)
        const why = `for a body with every bounded field at its ${edge} allowed value`
        const answer = await ctx.call({
          method: operation.method.toUpperCase(),
          path,
          json: body,
          operationId: write.operationId,
        })
        expectStatus(answer, write.status, why)
        const object = jsonObject(answer)
        const expected = write.expected(ctx, body)
        expectFields(object, expected, write.operationId, answer)
        const read = await ctx.call({ method: 'GET', path: write.readPath(object) })
        expectStatus(read, 200, `reading back what was written ${why}`)
        expectFields(jsonObject(read), expected, `${write.operationId}, read back`, read)
      }
    },
  }
}

/** The enum-valued fields beside the defaulted ones of a nested object of the create body (`llm.provider`). */
function variants(ctx: CheckContext, operationId: string): Record<string, unknown>[] {
  const schema = ctx.contract.operation(operationId).requestBody?.schema
  const defaults = schemaDefaults(ctx.contract, schema)
  const resolve = (value: unknown) =>
    resolveRef<{ properties?: Record<string, unknown>; enum?: unknown[] }>(ctx.contract.document, value)
  const properties = resolve(schema).properties ?? {}
  const choices: [string, string, unknown[]][] = []
  for (const [name, raw] of Object.entries(properties)) {
    const nested = defaults[name]
    if (!nested || typeof nested !== 'object') continue
    for (const [field, sub] of Object.entries(resolve(raw).properties ?? {})) {
      const values = resolve(sub).enum
      if (values && !(field in nested)) choices.push([name, field, values])
    }
  }
  const count = Math.max(0, ...choices.map(([, , values]) => values.length))
  return Array.from({ length: count }, (_, i) => {
    const out: Record<string, Record<string, unknown>> = {}
    for (const [name, field, values] of choices)
      out[name] = { ...out[name], [field]: values[i % values.length] }
    return out
  })
}

/**
 * The defaults of a nested object (`llm.temperature` 0.7, `voice.speed` 1) hold whatever the object's other
 * fields are: an agent is created once for each value of the enums beside them (each provider), the defaulted
 * fields left out, and shows the contract's defaults each time.
 */
const defaultsEveryVariant: ContractCheck = {
  id: 'resources/agents/defaults-every-variant',
  area: 'resources',
  group: 'Agents',
  title:
    "applies a nested object's defaults whatever its other fields are (an agent created with each provider shows the documented defaults)",
  needs: ['write'],
  async run(ctx) {
    const defaults = schemaDefaults(ctx.contract, ctx.contract.operation('createAgent').requestBody?.schema)
    const cases = variants(ctx, 'createAgent')
    ensure(
      cases.length > 0,
      'enum-valued fields beside defaulted ones in createAgent',
      'none in the contract',
    )
    for (const variant of cases) {
      const base = agentBody(ctx)
      const body: Record<string, unknown> = { ...base }
      for (const [name, fields] of Object.entries(variant)) {
        // The base's own value of the nested object, without the defaulted fields, with the variant's values.
        const own = { ...(base[name] as Record<string, unknown>), ...(fields as Record<string, unknown>) }
        for (const field of Object.keys(defaults[name] as Record<string, unknown>)) delete own[field]
        body[name] = own
      }
      const created = await ctx.call({
        method: 'POST',
        path: '/agents',
        json: body,
        operationId: 'createAgent',
      })
      expectStatus(created, 201, `for an agent with ${JSON.stringify(variant)} and no defaulted field`)
      expectFields(jsonObject(created), mergeDefaults(defaults, body), 'agent', created)
    }
  },
}

/** Bodies at the edges of the schemas, and defaults whatever the other fields. */
export const atTheBoundsChecks: ContractCheck[] = [...WRITES.map(atTheBounds), defaultsEveryVariant]

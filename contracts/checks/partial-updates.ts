import { flatten, type Schema } from '../contract/breakages.ts'
import type { OpenApiDocument } from '../contract/load-contract.ts'
import { ownAccount } from './after-changes.ts'
import { ensure, expectStatus, jsonObject, listData } from './failure.ts'
import { agentBody } from './fixtures.ts'
import { canonicalJson } from './same-json.ts'
import type { CheckContext, ContractCheck } from './types.ts'

let serial = 0

/**
 * A valid value of `schema` other than `current`, or undefined where the schema leaves none this can write
 * (a pattern, an e-mail address). A structured object gets one of its fields changed (it is merged); a map gets
 * one entry of its own (it replaces).
 */
export function otherValue(document: OpenApiDocument, schema: Schema, current: unknown): unknown {
  serial++
  const types = schema.type === undefined ? [] : [schema.type].flat()
  if (schema.enum) return schema.enum.find((value) => value !== null && value !== current)
  if (types.includes('boolean')) return current !== true
  if (types.includes('integer') || types.includes('number')) {
    const [min, max] = [schema.minimum, schema.maximum].map((v) => (typeof v === 'number' ? v : undefined))
    if (max !== undefined && current !== max) return max
    return min ?? (typeof current === 'number' ? current + 1 : 1)
  }
  if (types.includes('string')) {
    if (schema.format === 'uri') return `https://contract-suite.example/hook-${serial}`
    if (schema.pattern || schema.format) return undefined
    const max = typeof schema.maxLength === 'number' ? schema.maxLength : 100
    return `Contract ${serial}`.slice(0, max)
  }
  if (types.includes('array')) {
    const items = schema.items ? flatten(document, schema.items) : undefined
    const values = items?.enum
    if (!values || values.length === 0) return undefined
    const now = JSON.stringify(current)
    return [[values[0]], [values[1] ?? values[0]], values].find((v) => JSON.stringify(v) !== now)
  }
  if (schema.properties) {
    const stored = current && typeof current === 'object' ? (current as Record<string, unknown>) : {}
    for (const [name, raw] of Object.entries(schema.properties)) {
      const value = otherValue(document, flatten(document, raw), stored[name])
      if (value !== undefined && typeof value !== 'string') return { [name]: value }
    }
    return undefined
  }
  if (schema.additionalProperties) return { [`contract_${serial}`]: `value ${serial}` }
  return undefined
}

/** What a PATCH of `sent` for one field leaves stored: a structured object merged, anything else replaced. */
const stored = (schema: Schema, before: unknown, sent: unknown) =>
  schema.properties && before && typeof before === 'object'
    ? { ...(before as Record<string, unknown>), ...(sent as Record<string, unknown>) }
    : sent

/** An object of each kind with more than one field an update may change, and where it lives. */
const UPDATABLE: {
  operationId: string
  group: string
  path: (ctx: CheckContext, send: Send) => Promise<string>
}[] = [
  {
    operationId: 'updateAgent',
    group: 'Agents',
    path: async (ctx, send) => {
      const created = await send({ method: 'POST', path: '/agents', json: agentBody(ctx) })
      expectStatus(created, 201, 'for a valid create-agent body')
      return `/agents/${String(jsonObject(created).id)}`
    },
  },
  {
    operationId: 'updateIntegration',
    group: 'Integrations',
    // Connected first (credentials stored): what a later change must leave alone includes when they were.
    path: async (_, send) => {
      const connected = await send({
        method: 'PATCH',
        path: '/integrations/slack',
        json: { credentials: { bot_token: 'xoxb-contract-suite-only-named-fields' } },
        operationId: 'updateIntegration',
      })
      expectStatus(connected, 200, 'for PATCH /integrations/slack with credentials')
      return '/integrations/slack'
    },
  },
]

type Send = Awaited<ReturnType<typeof ownAccount>>['send']

/**
 * A partial update changes the fields it names and nothing else (the contract's update operations: "Partially
 * updates"): every field the update takes is first set to a value of the check's own, all at once; then each is
 * changed alone, twice (a switch turned off and on again), and after each change the object read back shows that
 * field changed (a structured object merged, anything else replaced) and every other field the update takes as it
 * was. Derived from the contract's update schemas.
 */
function onlyNamedFields(updatable: (typeof UPDATABLE)[number]): ContractCheck {
  return {
    id: `resources/updates/${updatable.operationId}/only-named-fields`,
    area: 'resources',
    group: updatable.group,
    title:
      'changes only the fields a PATCH names: each field changed alone, twice, every other field read back unchanged; two changes in a row both kept',
    needs: ['write'],
    async run(ctx) {
      const { send } = await ownAccount(ctx, `${updatable.operationId} fields`)
      const document = ctx.contract.document
      const operation = ctx.contract.operation(updatable.operationId)
      const fields = Object.entries(flatten(document, operation.requestBody?.schema).properties ?? {})
        .map(([name, raw]) => [name, flatten(document, raw)] as const)
        .filter(([, schema]) => schema.writeOnly !== true && schema.readOnly !== true)
      const path = await updatable.path(ctx, send)
      // The object read by ID, and its entry in its list (the check's own account holds few), which must agree
      // after every change.
      const collection = path.replace(/\/[^/]+$/, '')
      const read = async (why: string) => {
        const exchange = await send({ method: 'GET', path })
        expectStatus(exchange, 200, `reading ${path} ${why}`)
        const object = jsonObject(exchange)
        const listed = await send({ method: 'GET', path: collection })
        expectStatus(listed, 200, `listing ${collection} ${why}`)
        const entry = listData(listed).find((item) => item.id === object.id)
        ensure(
          canonicalJson(entry) === canonicalJson(object),
          `the entry of ${String(object.id)} in ${collection} as GET ${path} answers it, ${why}`,
          JSON.stringify(entry)?.slice(0, 300) ?? 'not listed',
          listed,
        )
        return object
      }
      const patch = async (json: Record<string, unknown>, why: string) =>
        expectStatus(
          await send({ method: 'PATCH', path, json, operationId: updatable.operationId }),
          200,
          `for PATCH ${path} ${why}`,
        )
      let state = await read('before any change')
      const everything: Record<string, unknown> = {}
      for (const [name, schema] of fields) {
        const value = otherValue(document, schema, state[name])
        if (value !== undefined) everything[name] = value
      }
      await patch(everything, `setting ${Object.keys(everything).join(', ')}`)
      state = await read('after every field was set')
      for (const [name, schema] of fields)
        for (let round = 0; round < 2; round++) {
          const value = otherValue(document, schema, state[name])
          if (value === undefined) continue
          const sent = JSON.stringify({ [name]: value })
          await patch({ [name]: value }, `with ${sent}`)
          const after = await read(`after ${sent}`)
          const want = stored(schema, state[name], value)
          ensure(
            canonicalJson(after[name]) === canonicalJson(want),
            `${name} = ${JSON.stringify(want)} after PATCH ${sent}`,
            JSON.stringify(after[name]),
          )
          // Every other field of the object, those no update takes too (when credentials were stored), but
          // `updated_at`: a PATCH that sends no credentials changes nothing else.
          for (const other of new Set([...Object.keys(state), ...Object.keys(after)]))
            if (other !== name && other !== 'updated_at')
              ensure(
                canonicalJson(after[other]) === canonicalJson(state[other]),
                `${other} unchanged (${JSON.stringify(state[other])?.slice(0, 120)}) after PATCH ${sent}, which does not name it`,
                JSON.stringify(after[other])?.slice(0, 200) ?? 'absent',
              )
          state = after
        }
      // Two changes one right after the other, nothing read between them: the second keeps the first.
      const changes = fields
        .map(([name, schema]) => [name, otherValue(document, schema, state[name]), schema] as const)
        .filter(([, value]) => value !== undefined)
        .slice(0, 2)
      if (changes.length < 2) return
      for (const [name, value] of changes)
        await patch({ [name]: value }, `with ${JSON.stringify({ [name]: value })}`)
      const after = await read('after two changes with no read between them')
      for (const [name, value, schema] of changes)
        ensure(
          canonicalJson(after[name]) === canonicalJson(stored(schema, state[name], value)),
          `${name} = ${JSON.stringify(stored(schema, state[name], value))} after two PATCHes in a row (${changes.map(([n]) => n).join(', then ')})`,
          JSON.stringify(after[name]),
        )
    },
  }
}

/** Partial updates change what they name, and only that. */
export const partialUpdateChecks: ContractCheck[] = UPDATABLE.map(onlyNamedFields)

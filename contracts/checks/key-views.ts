import type { ContractOperation } from '../contract/operations.ts'
import type { ScopedKey } from '../target/target.ts'
import { firstMissing } from './authorization.ts'
import { ensure, expectStatus, jsonObject, listData } from './failure.ts'
import { createAgent, inviteMember } from './fixtures.ts'
import { canonicalJson } from './same-json.ts'
import type { CheckContext, ContractCheck } from './types.ts'

/** An agent (or a list of them) as a publishable key must see it: the sensitive fields left out. */
function withoutSensitive(value: unknown, fields: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutSensitive(item, fields))
  if (!value || typeof value !== 'object') return value
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) }
  if (Array.isArray(out.data)) out.data = withoutSensitive(out.data, fields)
  else if (String(out.id ?? '').startsWith('agt_')) for (const field of fields) delete out[field]
  return out
}

/** A read the check sends with every key: a path and the operation it belongs to. */
interface Read {
  operation: ContractOperation
  path: string
}

/** Analytics over a fixed past range (the default range ends now, which moves between two requests). */
const ANALYTICS_QUERY = 'start=2026-01-01T00:00:00Z&end=2026-02-01T00:00:00Z&granularity=week'

/** Every read of the contract: the lists and single reads without parameters, and each list's first object. */
async function readsOf(ctx: CheckContext): Promise<Read[]> {
  const reads: Read[] = []
  for (const operation of ctx.contract.operations.filter((op) => op.method === 'get')) {
    if (operation.path.includes('{')) continue
    const path =
      operation.operationId === 'getCallAnalytics' ? `${operation.path}?${ANALYTICS_QUERY}` : operation.path
    reads.push({ operation, path })
    const item = ctx.contract.operations.find(
      (other) => other.method === 'get' && other.path.startsWith(`${operation.path}/{`),
    )
    if (!item) continue
    const list = await ctx.call({ method: 'GET', path: operation.path, operationId: operation.operationId })
    expectStatus(list, 200)
    const first = listData(list)[0]
    if (first) reads.push({ operation: item, path: `${operation.path}/${String(first.id)}` })
  }
  return reads
}

/**
 * What a key may read does not depend on which key reads it (docs/decisions/004-permissions.md: scopes decide
 * whether, the key's type only which agent fields): every read of the contract answered to the full secret key is
 * answered the same to each key that holds the read's scopes, and to the publishable key without the sensitive
 * fields. An answer kept for one key and served to another, or a read that filters by the key's scopes, shows.
 */
export const sameAnswerEveryKey: ContractCheck = {
  id: 'authorization/same-answer-every-key',
  area: 'authorization',
  group: 'Operations x scopes',
  title:
    'answers each read the same to every key that may make it (the publishable key without the sensitive agent fields)',
  needs: ['scoped-keys'],
  async run(ctx) {
    if (ctx.target.destructive) {
      await createAgent(ctx, {
        system_prompt: 'Contract suite prompt',
        webhook_url: 'https://contract-suite.example/h',
      })
      await inviteMember(ctx)
    }
    const keys: (ScopedKey & { publishable?: boolean })[] = [...ctx.keys.scoped]
    if (ctx.keys.publishable)
      keys.push({ key: ctx.keys.publishable, scopes: ['agents:read'], publishable: true })
    const fields = ctx.contract.sensitiveAgentFields
    for (const { operation, path } of await readsOf(ctx)) {
      const reference = await ctx.call({
        method: 'GET',
        path,
        operationId: operation.operationId,
        fresh: true,
      })
      expectStatus(reference, 200, `for GET ${path} with the secret key`)
      const full = jsonObject(reference)
      for (const key of keys) {
        if (firstMissing(key.scopes, operation.permissions)) continue
        const label = `${key.publishable ? 'the publishable key' : `a key holding [${key.scopes.join(', ')}]`}`
        const answer = await ctx.call({
          method: 'GET',
          path,
          key: key.key,
          operationId: operation.operationId,
          fresh: true,
        })
        expectStatus(answer, 200, `for GET ${path} with ${label}`)
        const want = key.publishable ? withoutSensitive(full, fields) : full
        ensure(
          canonicalJson(jsonObject(answer)) === canonicalJson(want),
          `GET ${path} with ${label} answered as to the secret key${key.publishable ? ' (without the sensitive fields)' : ''}`,
          'another answer',
          answer,
        )
      }
    }
  },
}

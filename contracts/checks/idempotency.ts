import type { Exchange } from '../http/exchange.ts'
import { ensure, expectError, expectStatus, jsonObject, listData } from './failure.ts'
import { agentBody } from './fixtures.ts'
import type { CheckContext, ContractCheck } from './types.ts'

/** Creates an agent with a fresh Idempotency-Key; returns the key, the body and the first answer. */
async function first(ctx: CheckContext, extra: Record<string, unknown> = {}) {
  const key = `contract-${ctx.runId}-${crypto.randomUUID()}`
  const body = agentBody(ctx, extra)
  const headers = { 'idempotency-key': key }
  const exchange = await ctx.call({
    method: 'POST',
    path: '/agents',
    json: body,
    headers,
    operationId: 'createAgent',
  })
  expectStatus(exchange, 201)
  const replayed = exchange.response.headers['idempotent-replayed']
  ensure(replayed === undefined, 'no Idempotent-Replayed on the first request', String(replayed), exchange)
  return { key, body, headers, exchange }
}

function expectReplay(replay: Exchange, original: Exchange): void {
  expectStatus(replay, 201, 'for a replay')
  const header = replay.response.headers['idempotent-replayed']
  ensure(header === 'true', 'Idempotent-Replayed: true', String(header ?? '(absent)'), replay)
  const same = JSON.stringify(jsonObject(replay)) === JSON.stringify(jsonObject(original))
  ensure(same, 'the stored response replayed (the same agent)', String(jsonObject(replay).id), replay)
}

/** The same JSON value with the keys of every object, nested ones included, in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversedKeys(v)]),
  )
}

const group = 'Idempotency'

/** Idempotency-Key: replays, JSON-value comparison, 409 for another body. */
export const idempotencyChecks: ContractCheck[] = [
  {
    id: 'resources/idempotency/replay',
    area: 'resources',
    group,
    title: 'replays a POST sent again with the same Idempotency-Key and body, creating nothing new',
    needs: ['write'],
    async run(ctx) {
      const { body, headers, exchange } = await first(ctx)
      const replay = await ctx.call({
        method: 'POST',
        path: '/agents',
        json: body,
        headers,
        operationId: 'createAgent',
      })
      expectReplay(replay, exchange)
      const list = await ctx.call({ method: 'GET', path: '/agents?limit=100', operationId: 'listAgents' })
      const copies = listData(list).filter((a) => a.name === body.name).length
      ensure(copies === 1, 'one agent created by the two requests', `${copies}`, list)
    },
  },
  {
    id: 'resources/idempotency/json-equality',
    area: 'resources',
    group,
    title:
      'compares replayed bodies as JSON values: key order (nested objects too) and whitespace do not matter, the order of an array does (409)',
    needs: ['write'],
    async run(ctx) {
      // A nested object of two keys and an array of two values, so that both orders can change.
      const { body, headers, exchange } = await first(ctx, {
        metadata: { contract_suite_run: ctx.runId, contract_suite_check: 'json-equality' },
        webhook_url: 'https://hooks.example.com/contract-suite',
        webhook_events: ['call.started', 'call.ended'],
      })
      const reordered = JSON.stringify(reversedKeys(body), null, 2)
      const replay = await ctx.call({
        method: 'POST',
        path: '/agents',
        body: reordered,
        headers: { ...headers, 'content-type': 'application/json' },
        operationId: 'createAgent',
      })
      expectReplay(replay, exchange)
      // The same events in the other order: another JSON value, so another body (docs/decisions/008-lists-and-idempotency.md,
      // the contract's Idempotency: "compared as JSON values").
      const events = body.webhook_events as unknown[]
      const reversed = await ctx.call({
        method: 'POST',
        path: '/agents',
        json: { ...body, webhook_events: [...events].reverse() },
        headers,
        operationId: 'createAgent',
      })
      expectError(
        reversed,
        409,
        { type: 'conflict_error', code: 'idempotency_key_reused' },
        `for the same Idempotency-Key with webhook_events in the other order (${[...events].reverse().join(', ')}): arrays are ordered JSON values, another body (docs/decisions/008-lists-and-idempotency.md)`,
      )
    },
  },
  {
    id: 'resources/idempotency/long-bodies',
    area: 'resources',
    group,
    title:
      'compares bodies over 64 KiB whole: the same one is replayed, one that differs only in its last bytes is 409',
    needs: ['write'],
    async run(ctx) {
      // 60,000 bytes of system prompt (three bytes a character in UTF-8) and 8,000 of metadata before the one value
      // that differs: past the 65,535 bytes a TEXT column, or any prefix a store keeps, would hold.
      const { metadata: _metadata, system_prompt: _prompt, ...rest } = agentBody(ctx)
      const filler = Object.fromEntries(
        Array.from({ length: 8 }, (_, i) => [`contract_filler_${i}`, 'é'.repeat(500)]),
      )
      const long = (tail: string) => ({
        ...rest,
        system_prompt: '語'.repeat(20_000),
        metadata: { contract_suite_run: ctx.runId, ...filler, contract_tail: tail },
      })
      const headers = { 'idempotency-key': `contract-${ctx.runId}-${crypto.randomUUID()}` }
      const post = (json: Record<string, unknown>) =>
        ctx.call({ method: 'POST', path: '/agents', json, headers, operationId: 'createAgent' })
      const created = await post(long('first'))
      expectStatus(created, 201, 'for a create-agent body of about 68 KB')
      expectReplay(await post(long('first')), created)
      expectError(
        await post(long('other')),
        409,
        { type: 'conflict_error', code: 'idempotency_key_reused' },
        'for the same Idempotency-Key with a body of about 68 KB that differs only in its last metadata value',
      )
    },
  },
  {
    id: 'resources/idempotency/conflict',
    area: 'resources',
    group,
    title:
      'answers 409 idempotency_key_reused for the same key with another body, 400 for a key over 255 characters',
    needs: ['write'],
    async run(ctx) {
      const { body, headers } = await first(ctx)
      const other = await ctx.call({
        method: 'POST',
        path: '/agents',
        json: { ...body, name: `${String(body.name)} (other)` },
        headers,
        operationId: 'createAgent',
      })
      expectError(other, 409, { type: 'conflict_error', code: 'idempotency_key_reused' })
      const tooLong = await ctx.call({
        method: 'POST',
        path: '/agents',
        json: body,
        headers: { 'idempotency-key': 'k'.repeat(256) },
        operationId: 'createAgent',
      })
      expectError(tooLong, 400, {
        type: 'invalid_request_error',
        code: 'invalid_parameter',
        param: 'Idempotency-Key',
      })
    },
  },
  {
    id: 'resources/idempotency/key-form',
    area: 'resources',
    group,
    title:
      'accepts an Idempotency-Key of 255 printable characters (409 when reused with another body) and answers 400 to one holding a space (the contract: 1-255 printable ASCII)',
    needs: ['write'],
    async run(ctx) {
      const longest = `${ctx.runId}-${crypto.randomUUID()}`.padEnd(255, 'k')
      const accepted = await ctx.call({
        method: 'POST',
        path: '/agents',
        json: agentBody(ctx),
        headers: { 'idempotency-key': longest },
        operationId: 'createAgent',
      })
      expectStatus(accepted, 201, 'for an Idempotency-Key of 255 characters')
      const reused = await ctx.call({
        method: 'POST',
        path: '/agents',
        json: agentBody(ctx),
        headers: { 'idempotency-key': longest },
        operationId: 'createAgent',
      })
      expectError(
        reused,
        409,
        { type: 'conflict_error', code: 'idempotency_key_reused', param: 'Idempotency-Key' },
        'for the 255-character key sent again with another body (error.param, when sent, names the header)',
      )
      const spaced = await ctx.call({
        method: 'POST',
        path: '/agents',
        json: agentBody(ctx),
        headers: { 'idempotency-key': `contract ${crypto.randomUUID()}` },
        operationId: 'createAgent',
      })
      expectError(
        spaced,
        400,
        { type: 'invalid_request_error', code: 'invalid_parameter', param: 'Idempotency-Key' },
        'for an Idempotency-Key holding a space',
      )
    },
  },
]

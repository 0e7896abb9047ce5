import { ensure, expectError, expectStatus, jsonObject, listData } from './failure.ts'
import { agentBody } from './fixtures.ts'
import type { ContractCheck } from './types.ts'

export const idempotencyChecks: ContractCheck[] = [
  {
    id: 'resources/idempotency/replay',
    area: 'resources',
    group: 'Idempotency',
    title:
      'replays a POST with the same Idempotency-Key (same object, Idempotent-Replayed), 409 for another body',
    needs: ['write'],
    async run(ctx) {
      const key = `contract-${ctx.runId}-${crypto.randomUUID()}`
      const body = agentBody(ctx)
      const headers = { 'idempotency-key': key }
      const first = await ctx.call({
        method: 'POST',
        path: '/agents',
        json: body,
        headers,
        operationId: 'createAgent',
      })
      expectStatus(first, 201)
      ensure(
        first.response.headers['idempotent-replayed'] === undefined,
        'no Idempotent-Replayed on the first request',
        String(first.response.headers['idempotent-replayed']),
        first,
      )
      const reordered = Object.fromEntries(Object.entries(body).reverse())
      const replay = await ctx.call({
        method: 'POST',
        path: '/agents',
        json: reordered,
        headers,
        operationId: 'createAgent',
      })
      expectStatus(replay, 201, 'for a replay')
      ensure(
        replay.response.headers['idempotent-replayed'] === 'true',
        'Idempotent-Replayed: true',
        String(replay.response.headers['idempotent-replayed'] ?? '(absent)'),
        replay,
      )
      ensure(
        JSON.stringify(jsonObject(replay)) === JSON.stringify(jsonObject(first)),
        'the stored response replayed (same agent)',
        String(jsonObject(replay).id),
        replay,
      )
      const list = await ctx.call({ method: 'GET', path: '/agents?limit=100', operationId: 'listAgents' })
      const copies = listData(list).filter((a) => a.name === body.name).length
      ensure(copies === 1, 'one agent created by the two requests', `${copies}`, list)
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
]

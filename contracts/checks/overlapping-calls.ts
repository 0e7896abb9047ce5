import { ensure, expectStatus, listData } from './failure.ts'
import { type CallSetup, simulatedCallCheck } from './simulated-calls.ts'
import type { ContractCheck } from './types.ts'

/**
 * Two calls that overlap: a long one placed first and a short one placed while it goes on, which ends first.
 * Listed, with and without filters, they come newest first by `created_at` (listCallLogs: "newest first
 * (`created_at` descending, then `id` descending)"), whatever order they ended in: an index on the end of a
 * call (the finished calls, `status=completed`) must not reorder them.
 */
export const overlappingCallsCheck: ContractCheck = {
  id: 'resources/call-logs/overlapping-calls',
  area: 'resources',
  group: 'Call logs',
  title:
    'lists two overlapping calls newest first by creation, with and without filters, though the newer one ended first',
  needs: ['write', 'clock', 'simulated-calls'],
  exclusive: true,
  prepare: simulatedCallCheck.prepare,
  async run(ctx) {
    const mock = ctx.mock
    const setup = ctx.prepared as CallSetup | undefined
    if (!mock || !setup)
      return ctx.skip('needs calls placed through the mock control plane (--provision mock)')
    const { accountId, key, agentId } = setup
    const place = async (input: Record<string, unknown>) =>
      String(
        (
          await mock.placeCall(accountId, {
            agent_id: agentId,
            ring_seconds: 1,
            outcome: 'completed',
            ...input,
          })
        ).id,
      )
    const long = await place({ duration_seconds: 60 })
    await mock.advanceClock(5)
    const short = await place({ duration_seconds: 5 })
    // Both ended (the short one about 50 s before the long one).
    await mock.advanceClock(70)
    for (const query of ['limit=100', 'status=completed&limit=100', 'direction=inbound&limit=100']) {
      const path = `/call-logs?${query}`
      const exchange = await ctx.call({
        method: 'GET',
        path,
        key,
        sensitive: [key],
        operationId: 'listCallLogs',
      })
      expectStatus(exchange, 200, `for ${path}`)
      const ids = listData(exchange)
        .map((log) => String(log.id))
        .filter((id) => id === long || id === short)
      ensure(
        ids.join() === [short, long].join(),
        `the call placed second (${short}, ended first) before the one placed first (${long}): newest first by created_at`,
        ids.join(', ') || 'neither',
        exchange,
      )
    }
  },
}

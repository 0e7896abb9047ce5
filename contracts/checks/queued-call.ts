import { ensure, expectStatus, jsonObject, listData } from './failure.ts'
import { type CallSetup, simulatedCallCheck } from './simulated-calls.ts'
import type { ContractCheck } from './types.ts'

/**
 * A call just placed, still queued (no `started_at` yet), beside one that has ended and is not analyzed yet (its
 * analysis comes 120 s after the end; docs/decisions/013-calls-and-webhooks.md): the listing puts the queued
 * call first, being the newest (the contract, listCallLogs: "newest first (`created_at` descending, then `id`
 * descending)"), and the analytics (read once the second it was created in has passed: the range ends now,
 * excluded) count both calls, the ended one as completed, neither as analyzed, with
 * `success_rate` null (the contract, getCallAnalytics: "`null` when nothing was analyzed").
 */
export const queuedCallCheck: ContractCheck = {
  id: 'resources/call-logs/queued-call',
  area: 'resources',
  group: 'Call logs',
  title:
    'lists a call just placed (queued, not started) first, before an older call that ended, and counts a call not yet analyzed in the analytics with success_rate null',
  needs: ['write', 'clock', 'simulated-calls'],
  exclusive: true,
  // An account of its own with a key and an agent, as the simulated-call check makes them.
  prepare: simulatedCallCheck.prepare,
  async run(ctx) {
    const mock = ctx.mock
    const setup = ctx.prepared as CallSetup | undefined
    if (!mock || !setup)
      return ctx.skip('needs calls placed through the mock control plane (--provision mock)')
    const { accountId, key, agentId } = setup
    const v1 = (path: string, operationId: string) =>
      ctx.call({ method: 'GET', path, key, sensitive: [key], operationId })
    const ended = String(
      (await mock.placeCall(accountId, { agent_id: agentId, ring_seconds: 2, duration_seconds: 10 })).id,
    )
    // Rings at 1 s, answered at 2 s, ends 10 s later; its analysis would come 120 s after that.
    await mock.advanceClock(14)
    const queued = String((await mock.placeCall(accountId, { agent_id: agentId, ring_seconds: 30 })).id)
    const list = await v1('/call-logs?limit=100', 'listCallLogs')
    expectStatus(list, 200, "for the account's call logs")
    const listed = listData(list).map((log) => String(log.id))
    ensure(
      listed.join() === [queued, ended].join(),
      `the call placed last (${queued}, queued) first, then the one that ended (${ended}): newest first by created_at`,
      listed.join(', '),
      list,
    )
    // The range ends now, excluding the second the queued call was created in: read it two seconds on (it rings).
    await mock.advanceClock(2)
    const analytics = await v1('/analytics/calls?granularity=total', 'getCallAnalytics')
    expectStatus(analytics, 200, 'for the analytics of the last 7 days')
    const totals = (jsonObject(analytics).totals ?? {}) as Record<string, unknown>
    const seen = ['call_count', 'completed_count', 'analyzed_count', 'successful_count', 'success_rate']
      .map((name) => `${name} ${JSON.stringify(totals[name])}`)
      .join(', ')
    ensure(
      totals.call_count === 2 &&
        totals.completed_count === 1 &&
        totals.analyzed_count === 0 &&
        totals.successful_count === 0 &&
        totals.success_rate === null,
      'call_count 2, completed_count 1, analyzed_count 0, successful_count 0, success_rate null (nothing analyzed yet)',
      seen,
      analytics,
    )
  },
}

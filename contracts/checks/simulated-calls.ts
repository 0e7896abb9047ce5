import { ensure, expectStatus, inOrder, jsonObject, listData } from './failure.ts'
import { agentBody, scratchAccount } from './fixtures.ts'
import { timed } from './time-passes.ts'
import type { ContractCheck } from './types.ts'

type Log = Record<string, unknown> & { transcript?: { start_seconds?: number }[] }

/** The account, key and agent the check places its calls for. */
export interface CallSetup {
  accountId: string
  key: string
  agentId: unknown
}

/**
 * A call placed on the mock (docs/decisions/013-calls-and-webhooks.md) as its call log shows it through `/v1`: utterances at
 * offsets from `started_at` that lie within the call and are never shown before they began, the `end_reason`
 * the contract sets for each outcome, and a call log deleted while its call goes on that stays deleted and is
 * counted in no analytics.
 */
export const simulatedCallCheck: ContractCheck = {
  id: 'resources/call-logs/simulated-call',
  area: 'resources',
  group: 'Call logs',
  title:
    "shows a call's transcript at offsets from started_at within the call, never before an utterance began, end_reason error for a failed call and null for one not answered, and keeps a call log deleted mid-call deleted, counted in no analytics",
  needs: ['write', 'clock', 'simulated-calls'],
  exclusive: true,
  // An account of its own with a key and an agent, made beside the other checks before its turn.
  async prepare(ctx): Promise<CallSetup | undefined> {
    const mock = ctx.mock
    if (!mock) return undefined
    const { account, name } = await scratchAccount(ctx, mock, 'simulated calls')
    const { value: key } = await mock.createKey(account.id, { type: 'secret', name })
    const created = await ctx.call({
      method: 'POST',
      path: '/agents',
      json: agentBody(ctx),
      key,
      sensitive: [key],
      operationId: 'createAgent',
    })
    expectStatus(created, 201, 'for a valid create-agent body')
    return { accountId: account.id, key, agentId: jsonObject(created).id }
  },
  async run(ctx) {
    const mock = ctx.mock
    const setup = ctx.prepared as CallSetup | undefined
    if (!mock || !setup)
      return ctx.skip('needs calls placed through the mock control plane (--provision mock)')
    const { accountId, key, agentId } = setup
    const v1 = (method: string, path: string, operationId: string, json?: unknown) =>
      ctx.call({ method, path, json, key, sensitive: [key], operationId })
    const place = async (input: Record<string, unknown>) =>
      String((await mock.placeCall(accountId, { agent_id: agentId, ring_seconds: 2, ...input })).id)
    const read = async (id: string): Promise<Log> => {
      const exchange = await v1('GET', `/call-logs/${id}`, 'getCallLog')
      expectStatus(exchange, 200, `for call log ${id}`)
      return jsonObject(exchange) as Log
    }
    const remove = async (id: string, when: string) =>
      expectStatus(
        await v1('DELETE', `/call-logs/${id}`, 'deleteCallLog'),
        200,
        `deleting a call log ${when}`,
      )

    const [answered, failed, unanswered, goneRinging, goneTalking, goneEnded] = (await inOrder(
      [
        { duration_seconds: 40 },
        { outcome: 'failed' },
        { outcome: 'no_answer' },
        { duration_seconds: 40 },
        { duration_seconds: 40 },
        { duration_seconds: 40 },
      ].map(place),
    )) as [string, string, string, string, string, string]
    await mock.advanceClock(1)
    await remove(goneRinging, 'while its call rings')
    await mock.advanceClock(2 + 5)
    await remove(goneTalking, 'while its call is in progress')
    // What the answer shows began before the answer, which came before the mock's clock read after it had
    // turned its next whole second.
    const { exchange: during, at } = await timed(ctx, () => v1('GET', `/call-logs/${answered}`, 'getCallLog'))
    expectStatus(during, 200, `for call log ${answered}`)
    const talking = jsonObject(during) as Log
    const elapsed = ((at?.until ?? Number.NaN) - Date.parse(String(talking.started_at))) / 1000
    const shown = talking.transcript ?? []
    ensure(
      shown.every((line) => Number(line.start_seconds) <= elapsed),
      `5 s into the talk (less than ${elapsed} s after started_at by the mock's clock), only utterances that began by then`,
      JSON.stringify(shown.map((line) => line.start_seconds)),
    )
    await mock.advanceClock(36)
    await read(goneEnded)
    await remove(goneEnded, 'after its call ended, before the analysis')
    await mock.advanceClock(125)

    const ended = await read(answered)
    const offsets = (ended.transcript ?? []).map((line) => Number(line.start_seconds))
    ensure(
      offsets.length > 0 &&
        offsets.every(
          (at, i) => at >= 2 && at <= Number(ended.duration_seconds) && at >= (offsets[i - 1] ?? 0),
        ),
      `utterances in order, from the 2 s of ringing to the end of the call (${String(ended.duration_seconds)} s after started_at)`,
      JSON.stringify(offsets),
    )
    ensure(
      JSON.stringify(shown) === JSON.stringify(ended.transcript?.slice(0, shown.length)),
      'the transcript shown during the call to begin the final transcript',
      JSON.stringify(shown).slice(0, 200),
    )
    const gone = [goneRinging, goneTalking, goneEnded]
    // Nothing changes any more: the last reads at once.
    const [failure, missed, list, analytics, ...reads] = await inOrder([
      read(failed),
      read(unanswered),
      v1('GET', '/call-logs?limit=100', 'listCallLogs'),
      v1('GET', '/analytics/calls?granularity=total', 'getCallAnalytics'),
      ...gone.map((id) => v1('GET', `/call-logs/${id}`, 'getCallLog')),
    ])
    ensure(failure.end_reason === 'error', `end_reason "error" for a failed call`, String(failure.end_reason))
    ensure(missed.end_reason === null, 'end_reason null for a call not answered', String(missed.end_reason))
    for (const [i, exchange] of reads.entries())
      expectStatus(exchange, 404, `for a call log deleted while its call went on (${gone[i]})`)
    const listed = listData(list).map((log) => String(log.id))
    const kept = [answered, failed, unanswered]
    ensure(
      listed.length === kept.length && kept.every((id) => listed.includes(id)),
      `the account's call logs to be the three not deleted: ${kept.join(', ')}`,
      listed.join(', '),
    )
    // The contract, deleteCallLog: "A deleted call log no longer counts in analytics" (all six calls were placed
    // within the default range, the last 7 days).
    expectStatus(analytics, 200, 'for the analytics of the last 7 days')
    const totals = jsonObject(analytics).totals as { call_count?: unknown } | undefined
    ensure(
      totals?.call_count === kept.length,
      `totals.call_count ${kept.length}: the three call logs deleted (${gone.join(', ')}) no longer count in analytics`,
      String(totals?.call_count),
      analytics,
    )
  },
}

import { Webhook } from 'standardwebhooks'
import type { ReceivedWebhook } from '../webhooks/webhook-receiver.ts'
import {
  CALL_EVENTS,
  type CallSetup,
  placeCall,
  prepareCall,
  requireDeliveries,
  type WebhookRun,
} from '../webhooks/webhook-setup.ts'
import { ensure, expectError, expectStatus, fail, inOrder, jsonObject, listData } from './failure.ts'
import { answeredBefore, clockReading, surelyBefore } from './time-passes.ts'
import type { CheckContext, ContractCheck } from './types.ts'

const group = 'Call events'

/** Seconds of real time a delivery may take to arrive once due. */
const ARRIVAL_MS = 10_000

interface Event {
  id: string
  type: string
  created_at?: string
  data: { object: Record<string, unknown> }
}

/** The body of a request as an event, failing on anything else. */
function eventOf(request: ReceivedWebhook): Event {
  try {
    return JSON.parse(request.body) as Event
  } catch {
    return fail('a JSON event body', request.body.slice(0, 200))
  }
}

/** The contract's schema of a webhook's body (`webhooks.<type>.post.requestBody`). */
function bodySchema(ctx: CheckContext, type: string): unknown {
  const path = ['webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema']
  const schema = path.reduce<unknown>(
    (node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
    ctx.contract.document,
  )
  if (!schema) fail(`the contract to document the webhook '${type}'`, 'no such webhook in the contract')
  return schema
}

/** Moves the mock's clock in steps, so that the call ends and is analysed (120 s after its end). */
async function runCallToItsEnd(ctx: CheckContext): Promise<void> {
  for (const seconds of [2, 30, 125]) await ctx.mock?.advanceClock(seconds)
}

/**
 * When the mock made attempt `number` (1 for the first) of the call's one delivery, by its clock (ms): the
 * start of the second its delivery log shows.
 */
async function attemptTime(run: WebhookRun, number: number): Promise<number> {
  const listed = await run.control(
    'GET',
    `/accounts/${run.accountId}/webhook-deliveries?call_id=${encodeURIComponent(run.callId)}`,
  )
  const deliveries = Array.isArray(listed.body.data) ? (listed.body.data as Record<string, unknown>[]) : []
  const attempts = (deliveries[0]?.attempts ?? []) as { number?: number; at?: string }[]
  const at = Date.parse(String(attempts.find((a) => a.number === number)?.at))
  if (Number.isNaN(at))
    fail(`attempt ${number} in the mock's delivery log`, JSON.stringify(deliveries).slice(0, 200))
  return at
}

/** Webhooks of a call placed on the mock (`--provision mock` only). */
export const webhookChecks: ContractCheck[] = [
  {
    id: 'webhooks/call-events/delivered',
    area: 'webhooks',
    group,
    title:
      'delivers every subscribed event of a call once, in order, signed with the secret, its body valid against the contract; the secret never shown again; the final call log listed by its agent',
    needs: ['write', 'clock', 'simulated-calls'],
    exclusive: true,
    prepare: (ctx) => prepareCall(ctx),
    async run(ctx) {
      const run = await placeCall(ctx)
      await runCallToItsEnd(ctx)
      await requireDeliveries(run)
      const arrived = await run.receiver.waitFor(CALL_EVENTS.length, ARRIVAL_MS)
      // Time for a duplicate to show up, if one were sent.
      await new Promise((resolve) => setTimeout(resolve, 500))
      const requests = run.receiver.received
      const events = requests.map(eventOf)
      ensure(arrived, `${CALL_EVENTS.length} webhooks within ${ARRIVAL_MS / 1000} s`, `${requests.length}`)
      const ids = events.map((e) => e.id)
      ensure(new Set(ids).size === ids.length, 'each event once (every answer was 200)', ids.join(', '))
      ensure(
        JSON.stringify(events.map((e) => e.type)) === JSON.stringify(CALL_EVENTS),
        `the events in order: ${CALL_EVENTS.join(', ')}`,
        events.map((e) => e.type).join(', '),
      )
      // How far apart the events happened, by the mock's own timestamps (whole seconds; the round trips of
      // the run do not count): the talk's 30 s, and the analysis 120 s after the end.
      const [started, ended, , analyzed] = events.map((e) => Date.parse(String(e.created_at)) / 1000)
      for (const [what, from, to, seconds] of [
        ['call.ended 30 s after call.started (the talk)', started, ended, 30],
        ['call.analyzed 120 s after call.ended', ended, analyzed, 120],
      ] as const)
        ensure(
          to !== undefined && from !== undefined && to - from >= seconds && to - from <= seconds + 1,
          `${what}, by the events' created_at`,
          to !== undefined && from !== undefined ? `${to - from} s` : 'no created_at',
        )
      const verifier = new Webhook(run.secret)
      for (const [index, request] of requests.entries()) {
        const event = events[index] as Event
        ensure(
          request.headers['webhook-id'] === event.id,
          `webhook-id to be the event id ${event.id}`,
          String(request.headers['webhook-id']),
        )
        try {
          verifier.verify(request.body, request.headers as Record<string, string>)
        } catch (error) {
          fail(`a valid Standard Webhooks signature on ${event.type}`, (error as Error).message)
        }
        const problems = ctx.contract.validator.validate(bodySchema(ctx, event.type), event)
        ensure(
          problems.length === 0,
          `the ${event.type} body valid against the contract`,
          problems.join('; '),
        )
        ensure(
          event.data.object.id === run.callId,
          `the call log of the call placed (${run.callId})`,
          String(event.data.object.id),
        )
      }
      // The signing secret is shown once, when created (docs/decisions/013-calls-and-webhooks.md): pasted as an agent ID, no
      // answer may show it again (every response is searched for the secrets a request sent).
      const pasted = await ctx.call({
        method: 'GET',
        path: `/agents/${encodeURIComponent(run.secret)}`,
        operationId: 'getAgent',
        key: run.key,
        sensitive: [run.secret, run.key],
      })
      expectError(pasted, 404, { code: 'resource_not_found' }, 'for the signing secret as the agent ID')
      // The call's log, now final, is the same read alone and listed by its agent (a fresh agent: one call;
      // a list may leave out fields such as the transcript, but what it shows is the call as it is now).
      const read = await ctx.call({
        method: 'GET',
        path: `/call-logs/${run.callId}`,
        operationId: 'getCallLog',
        key: run.key,
        sensitive: [run.key],
      })
      expectStatus(read, 200)
      const current = jsonObject(read)
      const byAgent = await ctx.call({
        method: 'GET',
        path: `/call-logs?agent_id=${run.agentId}&limit=100`,
        operationId: 'listCallLogs',
        key: run.key,
        sensitive: [run.key],
      })
      const listed = listData(byAgent)
      const differing = Object.entries(listed[0] ?? {}).filter(
        ([field, value]) => JSON.stringify(value) !== JSON.stringify(current[field]),
      )
      ensure(
        listed.length === 1 && listed[0]?.status === current.status && differing.length === 0,
        `the agent's one call log listed as GET /call-logs/${run.callId} shows it`,
        listed.length === 1
          ? `listed with ${differing.map(([field, value]) => `${field} ${JSON.stringify(value)} (alone: ${JSON.stringify(current[field])})`).join(', ')}`
          : `${listed.length} call logs`,
        byAgent,
      )
    },
  },
  {
    id: 'webhooks/call-events/retried',
    area: 'webhooks',
    group,
    title:
      'retries an event the receiver failed 5 seconds later, with the same webhook-id and signature valid',
    needs: ['write', 'clock', 'simulated-calls'],
    exclusive: true,
    prepare: (ctx) => prepareCall(ctx, [500, 200], ['call.started']),
    async run(ctx) {
      const run = await placeCall(ctx)
      await ctx.mock?.advanceClock(1)
      await requireDeliveries(run)
      ensure(await run.receiver.waitFor(1, ARRIVAL_MS), 'a first attempt', 'none')
      await ctx.mock?.advanceClock(6)
      ensure(await run.receiver.waitFor(2, ARRIVAL_MS), 'a second attempt after 5 s (mock clock)', 'none')
      const [first, second] = run.receiver.received as [ReceivedWebhook, ReceivedWebhook]
      ensure(
        first.headers['webhook-id'] === second.headers['webhook-id'],
        'the same webhook-id on the retry',
        `${first.headers['webhook-id']} then ${second.headers['webhook-id']}`,
      )
      ensure(first.body === second.body, 'the same body on the retry', second.body.slice(0, 120))
      try {
        new Webhook(run.secret).verify(second.body, second.headers as Record<string, string>)
      } catch (error) {
        fail('a valid signature on the retry', (error as Error).message)
      }
      await new Promise((resolve) => setTimeout(resolve, 500))
      ensure(
        run.receiver.received.length === 2,
        'no attempt after the 200',
        `${run.receiver.received.length}`,
      )
    },
  },
  {
    id: 'webhooks/call-events/stages',
    area: 'webhooks',
    group,
    title:
      'shows a simulated call through its stages on GET /call-logs/{id}: queued, ringing after 1 s, in_progress after the ring, the final status after the talk, the analysis 120 s later; a call not answered ends without cost, transcript or analysis',
    needs: ['write', 'clock', 'simulated-calls'],
    exclusive: true,
    prepare: (ctx) => prepareCall(ctx, [200], []),
    async run(ctx) {
      const run = ctx.prepared as CallSetup
      const place = async (body: Record<string, unknown>) => {
        const placed = await run.control('POST', `/accounts/${run.accountId}/calls`, {
          agent_id: run.agentId,
          ...body,
        })
        ensure(placed.status === 201, 'the call placed (201)', `${placed.status}`)
        return String(placed.body.id)
      }
      const read = async (id: string) => {
        const exchange = await ctx.call({
          method: 'GET',
          path: `/call-logs/${id}`,
          operationId: 'getCallLog',
          key: run.key,
          sensitive: [run.key],
        })
        expectStatus(exchange, 200)
        return jsonObject(exchange)
      }
      // docs/decisions/013-calls-and-webhooks.md: ringing after 1 s, in_progress after ring_seconds, the end after duration_seconds.
      // The mock's clock follows real time between the moves: a stage read just before the next one is due
      // may show the next when the round trips took that long, as the clock read after the answer tells.
      const placedFrom = await clockReading(ctx)
      const due = (seconds: number) => (placedFrom ?? Number.NaN) + seconds * 1000
      const [answered, unanswered] = await inOrder([
        place({ ring_seconds: 2, duration_seconds: 30 }),
        place({ ring_seconds: 2, outcome: 'no_answer' }),
      ])
      const expectStage = async (
        id: string,
        status: string,
        when: string,
        next?: { status: string; due: number },
      ) => {
        const log = await read(id)
        const until = next ? await answeredBefore(ctx) : undefined
        const allowed = next && !surelyBefore(until, next.due) ? [status, next.status] : [status]
        ensure(
          allowed.includes(String(log.status)),
          `status ${allowed.join(' or ')} ${when}${allowed.length > 1 ? ` (${next?.status} may have been due by the mock's clock when it answered)` : ''}`,
          String(log.status),
        )
        return log
      }
      await expectStage(answered, 'queued', 'when placed', { status: 'ringing', due: due(1) })
      await ctx.mock?.advanceClock(1)
      const ringing = await expectStage(answered, 'ringing', '1 s after it was placed', {
        status: 'in_progress',
        due: due(3),
      })
      ensure(typeof ringing.started_at === 'string', 'started_at once ringing', String(ringing.started_at))
      await ctx.mock?.advanceClock(2)
      await inOrder([
        expectStage(answered, 'in_progress', 'after its 2 s of ringing'),
        expectStage(unanswered, 'no_answer', 'after its 2 s of ringing, not answered'),
      ])
      await ctx.mock?.advanceClock(29)
      await expectStage(answered, 'in_progress', '29 s into its 30 s of talk', {
        status: 'completed',
        due: due(33),
      })
      await ctx.mock?.advanceClock(1)
      const ended = await expectStage(answered, 'completed', 'after its 30 s of talk')
      const span = (Date.parse(String(ended.ended_at)) - Date.parse(String(ended.started_at))) / 1000
      ensure(
        ended.duration_seconds === Math.floor(span),
        `duration_seconds to be the whole seconds from started_at to ended_at (${Math.floor(span)})`,
        String(ended.duration_seconds),
      )
      ensure(
        Array.isArray(ended.transcript) && ended.transcript.length > 0,
        'a transcript once the call ended',
        JSON.stringify(ended.transcript).slice(0, 80),
      )
      ensure(
        typeof ended.cost_usd === 'number' && ended.cost_usd > 0,
        'a cost for the answered call',
        String(ended.cost_usd),
      )
      ensure(
        ended.end_reason !== null && ended.end_reason !== undefined,
        'an end_reason',
        String(ended.end_reason),
      )
      ensure(ended.analysis === null, 'no analysis yet at the end', JSON.stringify(ended.analysis))
      const missed = await read(unanswered)
      ensure(
        missed.cost_usd === 0 && Array.isArray(missed.transcript) && missed.transcript.length === 0,
        'the unanswered call without cost or transcript',
        `cost ${String(missed.cost_usd)}, transcript ${JSON.stringify(missed.transcript).slice(0, 60)}`,
      )
      await ctx.mock?.advanceClock(119)
      const early = await read(answered)
      // The call ended at ended_at or within the second after it (whole seconds): the analysis is due 120 s on.
      if (surelyBefore(await answeredBefore(ctx), Date.parse(String(ended.ended_at)) + 120_000))
        ensure(early.analysis === null, 'no analysis 119 s after the end', 'an analysis')
      await ctx.mock?.advanceClock(1)
      const [analysed, stillMissed] = await inOrder([read(answered), read(unanswered)])
      ensure(
        analysed.analysis !== null && typeof analysed.analysis === 'object',
        'the analysis 120 s after the end',
        JSON.stringify(analysed.analysis),
      )
      ensure(stillMissed.analysis === null, 'no analysis of the unanswered call', 'an analysis')
    },
  },
  {
    id: 'webhooks/call-events/retry-schedule',
    area: 'webhooks',
    group,
    title:
      'retries a failing event after 5 s, 30 s and 2 min of mock time, no sooner, and sends only the events the agent subscribes to',
    needs: ['write', 'clock', 'simulated-calls'],
    exclusive: true,
    prepare: (ctx) => prepareCall(ctx, [500, 500, 500, 200], ['call.ended']),
    async run(ctx) {
      // Subscribed to call.ended only; the receiver fails three attempts, then answers 200.
      const run = await placeCall(ctx)
      await ctx.mock?.advanceClock(2)
      await ctx.mock?.advanceClock(30)
      await requireDeliveries(run)
      ensure(await run.receiver.waitFor(1, ARRIVAL_MS), 'a first attempt of call.ended', 'none')
      // docs/decisions/013-calls-and-webhooks.md: retried after 5 s, 30 s, 2 min (then 10 min, 1 h) of mock time.
      for (const [attempt, delay] of [
        [2, 5],
        [3, 30],
        [4, 120],
      ] as const) {
        await ctx.mock?.advanceClock(delay - 1)
        // An attempt that comes now may still be on time: the mock's clock followed real time meanwhile. It
        // is early when, by the mock's clock read once it arrived, the delay since the attempt before (its
        // time in the mock's delivery log, whole seconds) had surely not passed.
        if (await run.receiver.waitFor(attempt, 300)) {
          const until = await answeredBefore(ctx)
          const previous = await attemptTime(run, attempt - 1)
          ensure(
            !surelyBefore(until, previous + delay * 1000),
            `no attempt ${attempt} before ${delay} s after attempt ${attempt - 1} (${new Date(previous).toISOString()} by the mock's delivery log)`,
            `attempt ${attempt} came before ${until === undefined ? '?' : new Date(until).toISOString()} by the mock's clock`,
          )
        }
        await ctx.mock?.advanceClock(1)
        ensure(
          await run.receiver.waitFor(attempt, ARRIVAL_MS),
          `attempt ${attempt} ${delay} s after attempt ${attempt - 1}`,
          `${run.receiver.received.length} attempts`,
        )
      }
      // The call is analysed 120 s after its end, and a 10-minute retry would be due: neither may arrive.
      await ctx.mock?.advanceClock(700)
      await new Promise((resolve) => setTimeout(resolve, 500))
      const events = run.receiver.received.map(eventOf)
      ensure(
        events.length === 4 && events.every((e) => e.type === 'call.ended'),
        'four attempts of call.ended and nothing else (the agent subscribes to call.ended only; the 4th was answered 200)',
        events.map((e) => e.type).join(', '),
      )
      const ids = new Set(run.receiver.received.map((r) => r.headers['webhook-id']))
      ensure(ids.size === 1, 'the same webhook-id on every attempt', [...ids].join(', '))
    },
  },
  {
    id: 'webhooks/call-events/in-order',
    area: 'webhooks',
    group,
    title:
      'holds back the later events of a call while an earlier one is being retried, then delivers them in the order they happened',
    needs: ['write', 'clock', 'simulated-calls'],
    exclusive: true,
    prepare: (ctx) => prepareCall(ctx, [500, 500, 500, 200]),
    async run(ctx) {
      // call.started fails three times, over 37 s of mock time: the call ends meanwhile (30 s of talk), and its
      // later events must wait for call.started (the contract, tag Webhooks: "an event waits until the one
      // before it was delivered or given up").
      const run = await placeCall(ctx)
      const attempts = async (count: number, when: string) =>
        ensure(
          await run.receiver.waitFor(count, ARRIVAL_MS),
          `${count} attempts ${when}`,
          run.receiver.received.map((r) => eventOf(r).type).join(', ') || 'none',
        )
      await ctx.mock?.advanceClock(2)
      await requireDeliveries(run)
      await attempts(1, 'once the call started')
      await ctx.mock?.advanceClock(5)
      await attempts(2, '5 s later')
      await ctx.mock?.advanceClock(30)
      await attempts(3, '30 s later, the call ended by then')
      await ctx.mock?.advanceClock(125)
      await ctx.mock?.advanceClock(1)
      await attempts(7, 'once call.started was answered 200, 2 min later')
      await new Promise((resolve) => setTimeout(resolve, 500))
      const want = [...Array(4).fill('call.started'), 'call.ended', 'transcript.ready', 'call.analyzed']
      const got = run.receiver.received.map((r) => eventOf(r).type)
      ensure(
        JSON.stringify(got) === JSON.stringify(want),
        `the later events only after call.started was delivered, in order: ${want.join(', ')}`,
        got.join(', '),
      )
    },
  },
  {
    id: 'webhooks/call-events/unanswered',
    area: 'webhooks',
    group,
    title:
      'sends only call.ended for a call not answered (never in progress, nothing said, no analysis), with its final call log',
    needs: ['write', 'clock', 'simulated-calls'],
    exclusive: true,
    prepare: (ctx) => prepareCall(ctx),
    async run(ctx) {
      const run = await placeCall(ctx, { ring_seconds: 3, outcome: 'no_answer' })
      await runCallToItsEnd(ctx)
      await requireDeliveries(run)
      ensure(await run.receiver.waitFor(1, ARRIVAL_MS), 'call.ended', 'no webhook')
      // Time for an event that should not come.
      await new Promise((resolve) => setTimeout(resolve, 500))
      const events = run.receiver.received.map(eventOf)
      ensure(
        events.length === 1 && events[0]?.type === 'call.ended',
        'call.ended alone (no call.started, transcript.ready or call.analyzed for a call not answered)',
        events.map((e) => e.type).join(', '),
      )
      const log = events[0]?.data.object ?? {}
      ensure(
        log.status === 'no_answer' && JSON.stringify(log.transcript) === '[]' && log.end_reason === null,
        'the call log no_answer, with an empty transcript and end_reason null',
        `${String(log.status)}, ${JSON.stringify(log.transcript)}, ${String(log.end_reason)}`,
      )
    },
  },
]

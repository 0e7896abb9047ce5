import type { CallLog } from '../resources/types.ts'
import type { AgentPlan } from './agents.ts'
import { finalCall, type OutcomeContext } from './call-outcome.ts'
import { dollars } from './call-timing.ts'
import { callVocabulary } from './call-vocabulary.ts'
import { phoneNumbers } from './catalog.ts'
import type { ContractFaker } from './contract-faker.ts'
import { type Prng, weightedPicker } from './prng.ts'
import { SECOND } from './time.ts'
import { timestampOf } from './timestamps.ts'
import { buildTemplates } from './transcripts.ts'

/** What `seedCallLogs` needs: how many, the seeded agents, the time and the random source. */
export interface CallLogSeedOptions {
  count: number
  plans: readonly AgentPlan[]
  /** The clock's now, in whole seconds (ms). */
  now: number
  prng: Prng
  faker: ContractFaker
}

/** About this many conversation templates in all, however many agents there are. */
const TEMPLATE_TARGET = 64
/** Contract-generated `CallLog`s: fields the seed does not set itself (should the contract add any) come from them. */
const BASES = 8
const CURATED = new Set(
  'id object agent_id channel direction from_number to_number status end_reason started_at ended_at duration_seconds cost_usd recording_url analysis metadata created_at transcript'.split(
    ' ',
  ),
)

/**
 * Call logs for the agents, newest first, following the timing rules of the contract's `CallLogSummary`: every
 * call final, spread over the agents' windows in their business hours, and analysed (it ended more than the two
 * minutes an analysis takes ago). A seeded call never stays `ringing` or `in_progress`: nothing would move it on
 * (calls that move are started, `POST /_mock/accounts/{id}/calls`). Transcripts and analyses come from a small
 * pool of templates shared (frozen) between logs, so that 100,000 logs stay cheap.
 */
export function seedCallLogs(options: CallLogSeedOptions): CallLog[] {
  const { count, now, prng, faker } = options
  const plans = options.plans.filter((plan) => plan.callsUntil > plan.callsFrom)
  if (count <= 0 || plans.length === 0) return []
  const words = callVocabulary(faker)
  const ctx: OutcomeContext = { prng, now, words }
  const perScript = Math.max(2, Math.ceil(TEMPLATE_TARGET / (plans.length * 3)))
  const templates = plans.map((plan) => buildTemplates(plan, perScript, prng, faker))
  const bases = Array.from({ length: BASES }, () => uncurated(faker.fake('CallLog', prng.seed())))
  const hasExtras = bases.some((base) => Object.keys(base).length > 0)
  const pickPlan = weightedPicker(
    plans.map((_, i) => i),
    plans.map((plan) => plan.persona.volume * (plan.callsUntil - plan.callsFrom)),
  )
  const metadata = plans.map((plan) => ({
    phone: Object.freeze({}),
    web: Object.freeze({ source: 'web-widget' }),
    outbound: Object.freeze({ campaign: plan.persona.metadata.campaign ?? 'outreach' }),
  }))

  const logs: CallLog[] = new Array(count)
  const createdSeconds = new Float64Array(count)
  for (let i = 0; i < count; i++) {
    const k = pickPlan(prng)
    const plan = plans[k] as AgentPlan
    const { persona, agent } = plan
    const web = persona.direction === 'inbound' && prng.chance(persona.webShare)
    const outbound = !web && persona.direction === 'outbound'
    const status = (web ? words.webStatus : outbound ? words.outboundStatus : words.inboundStatus)(prng)
    const set = templates[k] as (typeof templates)[number]
    const call = finalCall(ctx, status, plan, set, outbound)
    const phone = web ? null : prng.pick(phoneNumbers(persona.region))
    const id = prng.id('call')
    const meta = metadata[k] as (typeof metadata)[number]
    const createdAt = timestampOf(call.created)
    // `as`: statuses, channels and reasons are the contract's enum values, checked at run time (callVocabulary).
    const log = {
      id,
      object: 'call_log',
      agent_id: agent.id,
      channel: web ? words.web : words.phone,
      direction: outbound ? words.outbound : words.inbound,
      from_number: web ? null : outbound ? plan.line : phone,
      to_number: web ? null : outbound ? phone : plan.line,
      status,
      end_reason: call.reason,
      started_at: call.started === call.created ? createdAt : timestampOf(call.started),
      ended_at: timestampOf(call.ended),
      duration_seconds: call.duration,
      cost_usd: dollars((call.connected / 60) * plan.ratePerMinute),
      recording_url:
        status === words.status.completed && agent.recording_enabled === true
          ? `https://recordings.example.com/v1/${id}.mp3`
          : null,
      analysis: call.analysis,
      metadata: web ? meta.web : outbound ? meta.outbound : meta.phone,
      created_at: createdAt,
      transcript: call.transcript as unknown[],
    } as CallLog
    logs[i] = hasExtras ? { ...(bases[i % BASES] as object), ...log } : log
    createdSeconds[i] = call.created / SECOND
  }
  return newestFirst(logs, createdSeconds)
}

/** The fields of a contract-generated call log that the seed does not set itself. */
function uncurated(log: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(log).filter(([field]) => !CURATED.has(field)))
}

/**
 * The collections' order, newest `created_at` first, then `id` descending: sorted on numbers (comparing the
 * strings costs several times more at 100,000 logs), so that `Collection.load` finds them already in order.
 */
function newestFirst(logs: CallLog[], createdSeconds: Float64Array): CallLog[] {
  const order = Uint32Array.from(logs.keys()).sort((a, b) => {
    const byTime = (createdSeconds[b] as number) - (createdSeconds[a] as number)
    if (byTime !== 0) return byTime
    const [x, y] = [(logs[a] as CallLog).id, (logs[b] as CallLog).id]
    return x < y ? 1 : x > y ? -1 : 0
  })
  return Array.from(order, (i) => logs[i] as CallLog)
}

import type { Agent, CallLog } from '../resources/types.ts'
import type { AgentPlan } from '../seed/agents.ts'
import { pickConversation } from '../seed/call-outcome.ts'
import type { CallVocabulary } from '../seed/call-vocabulary.ts'
import { phoneNumbers } from '../seed/catalog.ts'
import type { ContractFaker } from '../seed/contract-faker.ts'
import type { Persona } from '../seed/persona.ts'
import { PERSONAS } from '../seed/personas.ts'
import { createPrng } from '../seed/prng.ts'
import { buildTemplates } from '../seed/transcripts.ts'
import type { CallOutcome, SimulatedCall } from './simulated-calls.ts'

/** A call to start, defaults filled in (mock-control.yaml `CallStartRequest`). */
export interface CallInput {
  agent_id: string
  direction: 'inbound' | 'outbound'
  channel: 'phone' | 'web'
  from_number?: string
  to_number?: string
  outcome: CallOutcome
  ring_seconds: number
  duration_seconds: number
}

/** What planning a call draws on: the contract's faker and vocabulary, and the mock's seed. */
export interface PlanContext {
  faker: ContractFaker
  words: CallVocabulary
  seed: number
}

/** The persona an agent was seeded from (by name), or the one that speaks its language, or one by its id. */
export function personaFor(agent: Agent): Persona {
  const byName = PERSONAS.find((p) => agent.name === p.name || agent.name.startsWith(`${p.name} (`))
  if (byName) return byName
  const speaking = PERSONAS.filter((p) => p.language === agent.language)
  const pool = speaking.length > 0 ? speaking : PERSONAS
  return createPrng(0, agent.id).pick(pool)
}

const tenths = (seconds: number) => Math.round(seconds * 10) / 10

/**
 * The plan of a new call and its first call log (`queued`): the conversation of the agent's kind (the seed's
 * scripts and templates), cut at the talk time, who ended it, the analysis, the rate, the numbers.
 * Deterministic for a seed and call id.
 */
export function planCall(
  input: CallInput,
  agent: Agent,
  ids: { accountId: string; callId: string },
  context: PlanContext,
  now: { ms: number; iso: string },
): { call: SimulatedCall; log: CallLog } {
  const { faker, words } = context
  const prng = createPrng(context.seed, `call:${ids.callId}`)
  const persona = personaFor(agent)
  const numbers = phoneNumbers(persona.region)
  const line = createPrng(context.seed, `line:${agent.id}`).pick(numbers)
  const plan: AgentPlan = { agent, persona, line, ratePerMinute: 0, callsFrom: 0, callsUntil: 0 }
  const conversation = pickConversation(prng, buildTemplates(plan, 1, prng, faker))
  const maxSeconds = agent.max_call_duration_seconds
  const talkSeconds = Math.min(input.duration_seconds, maxSeconds)
  const said = conversation.transcript.filter((entry) => entry.start_seconds < talkSeconds)
  const endReason =
    input.duration_seconds > maxSeconds
      ? words.reason.maxDuration
      : talkSeconds < conversation.seconds
        ? words.reason.customer
        : words.endReason(prng)
  const web = input.channel === 'web'
  const other = input.direction === 'outbound' ? input.to_number : input.from_number
  const otherParty = other ?? prng.pick(numbers.filter((n) => n !== line))
  const ours = (input.direction === 'outbound' ? input.from_number : input.to_number) ?? line
  const call: SimulatedCall = {
    id: ids.callId,
    account_id: ids.accountId,
    agent_id: agent.id,
    outcome: input.outcome,
    ring_ms: input.ring_seconds * 1000,
    talk_ms: talkSeconds * 1000,
    conversation: said.map((entry) => ({ ...entry, start_seconds: tenths(entry.start_seconds) })),
    end_reason: endReason as CallLog['end_reason'],
    analysis: conversation.analysis,
    rate_per_minute: Math.round(prng.float(0.07, 0.15) * 1000) / 1000,
    recording_url: agent.recording_enabled ? `https://recordings.example.com/v1/${ids.callId}.mp3` : null,
    ringing_at: null,
    connected_at: null,
  }
  const log = {
    id: ids.callId,
    object: 'call_log',
    agent_id: agent.id,
    channel: input.channel,
    direction: input.direction,
    from_number: web ? null : input.direction === 'outbound' ? ours : otherParty,
    to_number: web ? null : input.direction === 'outbound' ? otherParty : ours,
    status: 'queued',
    end_reason: null,
    started_at: null,
    ended_at: null,
    duration_seconds: null,
    cost_usd: null,
    recording_url: null,
    analysis: null,
    metadata: {},
    created_at: now.iso,
    transcript: [],
  } as CallLog
  return { call, log }
}

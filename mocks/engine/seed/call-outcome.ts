import type { AgentPlan } from './agents.ts'
import { sampleStart } from './call-timing.ts'
import type { CallVocabulary } from './call-vocabulary.ts'
import { type Prng, weightedIndex } from './prng.ts'
import { SECOND } from './time.ts'
import type { AgentTemplates, CallTemplate, Entry } from './transcripts.ts'

/** The timing and content of one finished call (epoch ms; seconds for durations), before it becomes a call log. */
export interface CallOutcome {
  created: number
  started: number
  ended: number
  duration: number
  /** Seconds the call was connected, which it is billed for. */
  connected: number
  reason: string | null
  transcript: readonly Entry[]
  analysis: CallTemplate['analysis'] | null
}

/** What every call outcome draws on. */
export interface OutcomeContext {
  prng: Prng
  now: number
  words: CallVocabulary
}

const NO_ENTRIES: readonly Entry[] = Object.freeze([])
/** Post-call analysis takes a moment (docs/decisions/013-calls-and-webhooks.md): seeded calls ended before it. */
const ANALYSIS_DELAY = 120 * SECOND

/** One of the agent's conversations, its scripts weighted by how often they happen. */
export function pickConversation(prng: Prng, set: AgentTemplates): CallTemplate {
  return prng.pick(set.conversations[weightedIndex(prng, set.weights)] as CallTemplate[])
}

/**
 * A call that reached a final status at some time in the agent's window, ended more than the analysis delay
 * before now (so a completed call has its analysis, as a started call gets it 120 s after its end): completed
 * calls carry a whole conversation (or a voicemail), failed calls what was said before the line dropped, calls
 * that were never answered nothing. Every final call has started (the contract: `started_at` is null only
 * while `queued`), so `canceled` ones were canceled while ringing.
 */
export function finalCall(
  ctx: OutcomeContext,
  status: string,
  plan: AgentPlan,
  set: AgentTemplates,
  outbound: boolean,
): CallOutcome {
  const { prng, now, words } = ctx
  const { status: S, reason: R } = words
  let duration: number
  let connected = 0
  let reason: string | null = null
  let transcript = NO_ENTRIES
  let template: CallTemplate | null = null
  if (status === S.completed) {
    const maxSeconds = plan.agent.max_call_duration_seconds as number
    template = outbound && set.voicemail && prng.chance(0.15) ? set.voicemail : pickConversation(prng, set)
    duration = Math.ceil(template.seconds) + prng.int(1, 6)
    transcript = template.transcript
    reason = template === set.voicemail ? R.voicemail : words.endReason(prng)
    if (reason === R.silence) duration += prng.int(8, 15)
    if (duration >= maxSeconds) {
      duration = maxSeconds
      reason = R.maxDuration
      transcript = Object.freeze(template.transcript.filter((entry) => entry.start_seconds < maxSeconds))
    }
    connected = duration
  } else if (status === S.failed) {
    const cut = pickConversation(prng, set)
    const spoke = prng.chance(0.6)
    transcript = spoke ? cut.opening : NO_ENTRIES
    duration = spoke ? Math.ceil(cut.openingSeconds) + prng.int(1, 4) : prng.int(1, 8)
    reason = R.error
    connected = duration
  } else if (status === S.noAnswer) duration = prng.int(18, 45)
  else if (status === S.busy) duration = prng.int(1, 4)
  else duration = prng.int(2, 20)
  let start = sampleStart(prng, plan.persona, plan.callsFrom, plan.callsUntil)
  const latestEnd = Math.min(plan.callsUntil, now - ANALYSIS_DELAY)
  if (start + duration * SECOND >= latestEnd) start = latestEnd - (duration + prng.int(1, 300)) * SECOND
  const ended = start + duration * SECOND
  return {
    created: outbound ? start - prng.int(0, 2) * SECOND : start,
    started: start,
    ended,
    duration,
    connected,
    reason,
    transcript,
    analysis: template?.analysis ?? null,
  }
}

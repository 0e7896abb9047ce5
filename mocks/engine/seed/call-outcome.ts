import type { AgentPlan } from './agents.ts'
import { sampleStart } from './call-timing.ts'
import type { CallVocabulary } from './call-vocabulary.ts'
import { type Prng, weightedIndex } from './prng.ts'
import { SECOND } from './time.ts'
import type { AgentTemplates, CallTemplate, Entry } from './transcripts.ts'

/** The timing and content of one call (epoch ms; seconds for durations), before it becomes a call log. */
export interface CallOutcome {
  created: number
  started: number | null
  ended: number | null
  duration: number | null
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
/** Post-call analysis takes a moment: calls that ended in the last two minutes have none yet. */
const ANALYSIS_DELAY = 120 * SECOND

/** One of the agent's conversations, its scripts weighted by how often they happen. */
export function pickConversation(prng: Prng, set: AgentTemplates): CallTemplate {
  return prng.pick(set.conversations[weightedIndex(prng, set.weights)] as CallTemplate[])
}

/** A call still under way: `queued` (not started), `ringing`, or `in_progress` with what was said so far. */
export function liveCall(
  ctx: OutcomeContext,
  status: string,
  set: AgentTemplates,
  outbound: boolean,
): CallOutcome {
  const { prng, now, words } = ctx
  const S = words.status
  const said = pickConversation(prng, set)
  const elapsed =
    status === S.inProgress
      ? prng.int(3, Math.max(4, Math.floor(said.seconds * 0.9)))
      : status === S.ringing
        ? prng.int(2, 20)
        : 0
  const started = status === S.queued ? null : now - elapsed * SECOND
  let transcript = NO_ENTRIES
  if (status === S.inProgress) {
    const upTo = said.transcript.findIndex((entry) => entry.start_seconds >= elapsed)
    transcript = Object.freeze(said.transcript.slice(0, upTo === -1 ? undefined : upTo))
  }
  return {
    created: started === null ? now - prng.int(1, 15) * SECOND : started - (outbound ? SECOND : 0),
    started,
    ended: null,
    duration: null,
    connected: 0,
    reason: null,
    transcript,
    analysis: null,
  }
}

/**
 * A call that reached a final status at some time in the agent's window, ended before now: completed calls
 * carry a whole conversation (or a voicemail), failed calls what was said before the line dropped, calls that
 * were never answered nothing. Every final call has started (the contract: `started_at` is null only while
 * `queued`), so `canceled` ones were canceled while ringing.
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
  if (start + duration * SECOND >= plan.callsUntil)
    start = plan.callsUntil - (duration + prng.int(1, 300)) * SECOND
  const ended = start + duration * SECOND
  return {
    created: outbound ? start - prng.int(0, 2) * SECOND : start,
    started: start,
    ended,
    duration,
    connected,
    reason,
    transcript,
    analysis: template && ended < now - ANALYSIS_DELAY ? template.analysis : null,
  }
}

import type { CallLog } from '../resources/types.ts'
import type { AgentPlan } from './agents.ts'
import { FIRST_NAMES, LAST_NAMES, TIMES, WEEKDAYS } from './catalog.ts'
import type { ContractFaker } from './contract-faker.ts'
import type { Script } from './persona.ts'
import { PETS } from './personas.ts'
import type { Prng } from './prng.ts'

/** The contract's `CallAnalysis`. */
export type Analysis = NonNullable<CallLog['analysis']>

/** One utterance, as the contract's `TranscriptEntry`. */
export interface Entry {
  role: 'agent' | 'user'
  text: string
  start_seconds: number
  [field: string]: unknown
}

/**
 * A finished conversation shared, frozen, by many call logs: its transcript, how long it lasts and its analysis.
 * `opening` is the part a call that failed early had time for.
 */
export interface CallTemplate {
  transcript: readonly Entry[]
  seconds: number
  analysis: Readonly<Analysis>
  opening: readonly Entry[]
  openingSeconds: number
}

/** An agent's templates: conversations grouped by script, each script with its weight, and its voicemail. */
export interface AgentTemplates {
  conversations: CallTemplate[][]
  weights: number[]
  voicemail: CallTemplate | null
}

const SCRIPT_WEIGHT = { positive: 6, neutral: 3, negative: 1.5 } as const

/** Placeholder values for one conversation, in the agent's language. */
function fillsFor(prng: Prng, language: string): Record<string, string> {
  const days = WEEKDAYS[language.split('-')[0] ?? 'en'] ?? (WEEKDAYS.en as readonly string[])
  return {
    name: prng.pick(FIRST_NAMES),
    last: prng.pick(LAST_NAMES),
    day: prng.pick(days),
    time: prng.pick(TIMES),
    ref: `INC${prng.int(1_000_000, 9_999_999)}`,
    pet: prng.pick(PETS),
  }
}

const fill = (text: string, fills: Record<string, string>) =>
  text.replace(/\{(\w+)\}/g, (whole, name: string) => fills[name] ?? whole)

/** Seconds it takes to say `text` at a natural pace (about 2.5 words a second), slower or faster per call. */
const spokenSeconds = (text: string, pace: number) => (text.split(/\s+/).length / 2.5) * pace

const tenths = (seconds: number) => Math.round(seconds * 10) / 10

/**
 * Lays the lines out in time: each starts after the previous one ends, plus the pause of a reply (the agent's
 * includes its model and speech latency). A line with `...` stands for someone looking something up or doing
 * what they were asked, which takes a while.
 */
function timeline(prng: Prng, base: object, lines: readonly string[], firstStart: number) {
  const entries: Entry[] = []
  const pace = prng.float(0.85, 1.3)
  let clock = firstStart
  for (const line of lines) {
    const role = line.startsWith('A: ') ? 'agent' : line.startsWith('U: ') ? 'user' : undefined
    if (!role) throw new Error(`A script line must start with 'A: ' or 'U: ': ${line}`)
    const text = line.slice(3)
    entries.push(Object.freeze({ ...base, role, text, start_seconds: tenths(clock) }))
    clock += spokenSeconds(text, pace) + (role === 'agent' ? prng.float(0.5, 1.5) : prng.float(0.8, 1.9))
    if (text.includes('...')) clock += prng.float(4, 25)
  }
  return { entries, seconds: clock }
}

function template(
  prng: Prng,
  bases: { entry: object; analysis: object },
  lines: readonly string[],
  outcome: Script,
  fills: Record<string, string>,
  firstStart: number,
): CallTemplate {
  const { entries, seconds } = timeline(
    prng,
    bases.entry,
    lines.map((line) => fill(line, fills)),
    firstStart,
  )
  const openingLength = Math.min(entries.length, prng.int(1, 2))
  const opening = entries.slice(0, openingLength)
  const last = entries[openingLength] ?? entries[entries.length - 1]
  return {
    transcript: Object.freeze(entries),
    seconds,
    analysis: Object.freeze({
      ...bases.analysis,
      summary: fill(outcome.summary, fills),
      sentiment: outcome.sentiment,
      successful: outcome.successful,
    }),
    opening: Object.freeze(opening),
    openingSeconds: last ? last.start_seconds : 0,
  }
}

/**
 * `perScript` conversations for each of the agent's scripts, and a voicemail for outbound agents. The entry and
 * analysis objects start from the contract's `TranscriptEntry` and `CallAnalysis` (json-schema-faker), so
 * any field the contract adds is present and valid; the curated text replaces the generated one.
 */
export function buildTemplates(
  plan: AgentPlan,
  perScript: number,
  prng: Prng,
  faker: ContractFaker,
): AgentTemplates {
  const { persona, agent } = plan
  const bases = {
    entry: faker.fake<object>('TranscriptEntry', prng.seed()),
    analysis: faker.fake<object>('CallAnalysis', prng.seed()),
  }
  const agentFirst = agent.first_speaker === 'agent' && typeof agent.first_message === 'string'
  const conversations = persona.scripts.map((script) => {
    const list: CallTemplate[] = []
    for (let i = 0; i < perScript; i++) {
      const fills = fillsFor(prng, persona.language)
      const opener = agentFirst ? `A: ${agent.first_message}` : `U: ${persona.userOpener ?? 'Hello?'}`
      const firstStart = agentFirst ? prng.float(0.3, 1.0) : prng.float(0.8, 2.5)
      list.push(template(prng, bases, [opener, ...script.turns], script, fills, firstStart))
    }
    return list
  })
  let voicemail: CallTemplate | null = null
  if (persona.voicemail) {
    const fills = fillsFor(prng, persona.language)
    const greeting = `U: Hi, you've reached ${fills.name}. Please leave a message after the tone.`
    voicemail = template(prng, bases, [greeting, ...persona.voicemail.turns], persona.voicemail, fills, 0.6)
  }
  return { conversations, weights: persona.scripts.map((s) => SCRIPT_WEIGHT[s.sentiment]), voicemail }
}

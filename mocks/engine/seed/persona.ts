import type { Region } from './catalog.ts'

/** How a scripted call went: the post-call analysis it gets. */
export interface Outcome {
  sentiment: 'positive' | 'neutral' | 'negative'
  successful: boolean
  /** Summary with the same placeholders as the turns. */
  summary: string
}

/** A conversation after the opening line: `A: ` lines are the agent's, `U: ` lines the caller's. */
export interface Script extends Outcome {
  turns: readonly string[]
}

/**
 * One kind of voice agent: its configuration, the calls it takes and how they sound. Text may hold the
 * placeholders `{name}`, `{last}`, `{day}`, `{time}`, `{ref}` and `{pet}`, filled per transcript.
 */
export interface Persona {
  key: string
  name: string
  description: string
  language: string
  region: Region
  /** Domain of the agent's business, for webhook URLs (reserved `.example` names). */
  domain: string
  firstSpeaker: 'agent' | 'user'
  /** Spoken first when the agent speaks first; `null` lets the model open. */
  firstMessage: string | null
  /** What the person says first when the user speaks first. */
  userOpener?: string
  systemPrompt: string
  metadata: Record<string, string>
  maxCallSeconds: number
  /** `inbound` agents take calls, `outbound` agents place them. */
  direction: 'inbound' | 'outbound'
  /** Share of the agent's calls that come through the web widget (inbound agents only). */
  webShare: number
  /** Relative call volume. */
  volume: number
  scripts: readonly Script[]
  /** What an outbound agent says to an answering machine. */
  voicemail?: Script
}

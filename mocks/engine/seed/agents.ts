import { toTimestamp } from '../clock.ts'
import type { Agent } from '../resources/types.ts'
import { MAX_TOKENS, MODELS, phoneNumbers, SPEEDS, TEMPERATURES, VOICES } from './catalog.ts'
import { type ContractFaker, clampTo, enumValue } from './contract-faker.ts'
import type { Persona } from './persona.ts'
import { BRANCHES, PERSONAS } from './personas.ts'
import type { Prng } from './prng.ts'
import { DAY, HOUR, MONTH, withinAnHour } from './time.ts'

/** A seeded agent and what its calls need to know about it. */
export interface AgentPlan {
  agent: Agent
  persona: Persona
  /** The agent's own phone line (E.164): `to` of its inbound calls, `from` of its outbound calls. */
  line: string
  /** What a connected minute costs, in US dollars. */
  ratePerMinute: number
  /** Epoch ms between which the agent took calls (inactive agents stopped when deactivated). */
  callsFrom: number
  callsUntil: number
}

interface Voice {
  provider: string
  voice_id: string
  speed: number
}

interface Llm {
  provider: string
  model: string
  temperature: number
  max_tokens: number
}

/** The voice id of the provider's pool that speaks the language, or the contract-generated id if none. */
function voiceFor(prng: Prng, voice: Voice, language: string): string {
  const pool = VOICES[voice.provider]
  if (!pool) return voice.voice_id
  const speaking = pool.filter((v) => !v.lang || language.startsWith(v.lang))
  return prng.pick(speaking.length > 0 ? speaking : pool).id
}

/**
 * Agents from the contract's `Agent` schema (json-schema-faker picks the providers, recording, webhook events and
 * any field the seed does not curate), dressed as the personas: name, prompt, voice and model that fit together.
 */
export function seedAgents(options: {
  count: number
  now: number
  prng: Prng
  faker: ContractFaker
}): AgentPlan[] {
  const { count, now, prng, faker } = options
  const schema = '#/components/schemas/Agent/properties'
  const status = faker.enumOf(`${schema}/status`)
  const active = enumValue(status, 'active')
  const inactive = enumValue(status, 'inactive')
  const maxDuration = faker.node(`${schema}/max_call_duration_seconds`)
  const callEnded = enumValue(faker.enumOf('#/components/schemas/WebhookEvent'), 'call.ended')
  const lines = new Set<string>()
  const plans: AgentPlan[] = []
  for (let i = 0; i < count; i++) {
    const persona = PERSONAS[i % PERSONAS.length] as Persona
    const round = Math.floor(i / PERSONAS.length)
    const branch = round === 0 ? '' : BRANCHES[(round - 1) % BRANCHES.length]
    const suffix = round > BRANCHES.length ? ` ${Math.ceil(round / BRANCHES.length)}` : ''
    const base = faker.fake<Agent>('Agent', prng.seed())
    const voice = base.voice as Voice
    const llm = base.llm as Llm
    const createdMs =
      now - (62 - (i / Math.max(1, count)) * 54) * DAY + prng.int(-10, 9) * HOUR + withinAnHour(prng)
    const isActive = i < 3 || !prng.chance(0.15)
    const updatedMs = isActive
      ? createdMs + prng.next() * (now - createdMs)
      : Math.max(createdMs + DAY, now - prng.int(2, 12) * DAY - prng.int(0, 23) * HOUR - withinAnHour(prng))
    const hasWebhook = prng.chance(0.75)
    const events = base.webhook_events as string[]
    const numbers = phoneNumbers(persona.region)
    let line = prng.pick(numbers)
    for (let tries = 0; lines.has(line) && tries < 20; tries++) line = prng.pick(numbers)
    lines.add(line)
    // `as`: providers and webhook events are the contract's enum values, picked at run time by the faker.
    const agent = {
      ...base,
      id: prng.id('agt'),
      object: 'agent',
      name: branch ? `${persona.name} (${branch}${suffix})` : persona.name,
      description: persona.description,
      status: isActive ? active : inactive,
      language: persona.language,
      system_prompt: persona.systemPrompt,
      first_message: persona.firstMessage,
      first_speaker: persona.firstSpeaker,
      voice: {
        ...voice,
        voice_id: voiceFor(prng, voice, persona.language),
        speed: prng.pick(SPEEDS),
      } as Agent['voice'], // providers come from the contract's enum through json-schema-faker
      llm: {
        ...llm,
        model: MODELS[llm.provider] ? prng.pick(MODELS[llm.provider] as string[]) : llm.model,
        temperature: prng.pick(TEMPERATURES),
        max_tokens: prng.pick(MAX_TOKENS),
      } as Agent['llm'],
      max_call_duration_seconds: clampTo(maxDuration, persona.maxCallSeconds),
      webhook_url: hasWebhook ? `https://hooks.${persona.domain}/voice/${persona.key}` : null,
      webhook_events: (hasWebhook
        ? events.length > 0
          ? events.slice(0, prng.int(1, events.length))
          : [callEnded]
        : []) as Agent['webhook_events'],
      metadata: branch ? { ...persona.metadata, branch } : { ...persona.metadata },
      created_at: toTimestamp(createdMs),
      updated_at: toTimestamp(updatedMs),
    } as Agent
    plans.push({
      agent,
      persona,
      line,
      ratePerMinute: Math.round(prng.float(0.07, 0.15) * 1000) / 1000,
      callsFrom: Math.max(createdMs, now - MONTH),
      callsUntil: isActive ? now : updatedMs,
    })
  }
  return plans
}

/**
 * Curated value pools that make contract-generated data look real. They hold values, never rules:
 * enums, bounds and formats come from the contract.
 */

/** Real voice ids per voice provider; `lang` limits a voice to languages starting with it. */
export const VOICES: Record<string, readonly { id: string; lang?: string }[]> = {
  elevenlabs: [
    { id: '21m00Tcm4TlvDq8ikWAM' },
    { id: 'EXAVITQu4vr4xnSDxMaL' },
    { id: 'ErXwobaYiN019PkySvjV' },
    { id: 'pNInz6obpgDQGcFmaJgB' },
    { id: 'XB0fDUnXU5powFXDhCwa' },
    { id: 'ThT5KcBeYPX3keUQqHPh' },
  ],
  cartesia: [
    { id: '79a125e8-cd45-4c13-8a67-188112f4dd22', lang: 'en' },
    { id: 'a0e99841-438c-4a64-b679-ae501e7d6091', lang: 'en' },
    { id: '156fb8d2-335b-4950-9cb3-a2d33befec77', lang: 'en' },
  ],
  openai: [
    { id: 'alloy' },
    { id: 'ash' },
    { id: 'coral' },
    { id: 'nova' },
    { id: 'sage' },
    { id: 'shimmer' },
  ],
  azure: [
    { id: 'en-US-JennyNeural', lang: 'en-US' },
    { id: 'en-US-GuyNeural', lang: 'en-US' },
    { id: 'en-US-AriaNeural', lang: 'en-US' },
    { id: 'en-GB-SoniaNeural', lang: 'en-GB' },
    { id: 'en-GB-RyanNeural', lang: 'en-GB' },
    { id: 'en-AU-NatashaNeural', lang: 'en-AU' },
    { id: 'en-CA-ClaraNeural', lang: 'en-CA' },
    { id: 'es-US-PalomaNeural', lang: 'es' },
    { id: 'fr-CA-SylvieNeural', lang: 'fr' },
  ],
  deepgram: [
    { id: 'aura-2-thalia-en', lang: 'en' },
    { id: 'aura-2-andromeda-en', lang: 'en' },
    { id: 'aura-2-apollo-en', lang: 'en' },
    { id: 'aura-asteria-en', lang: 'en' },
    { id: 'aura-orion-en', lang: 'en' },
    { id: 'aura-2-celeste-es', lang: 'es' },
    { id: 'aura-2-nestor-es', lang: 'es' },
  ],
  playht: [
    { id: 's3://voice-cloning-zero-shot/d9ff78ba-d016-47f6-b0ef-dd630f59414e/female-cs/manifest.json' },
    { id: 's3://voice-cloning-zero-shot/775ae416-49bb-4fb6-bd45-740f205d20a1/jennifersaad/manifest.json' },
  ],
}

/** Model names per LLM provider, as each provider spells them. */
export const MODELS: Record<string, readonly string[]> = {
  openai: ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-mini'],
  anthropic: ['claude-sonnet-4-20250514', 'claude-3-7-sonnet-latest', 'claude-3-5-haiku-latest'],
  google: ['gemini-2.5-flash', 'gemini-2.0-flash', 'gemini-1.5-pro'],
  groq: ['llama-3.3-70b-versatile', 'llama-3.1-8b-instant', 'gemma2-9b-it'],
  custom: ['acme-voice-llama-3.1-8b-ft', 'support-mistral-7b-v3'],
}

/** Model temperatures, speaking rates and reply budgets agents are usually given. */
export const TEMPERATURES = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.7, 0.8] as const
export const MAX_TOKENS = [256, 300, 400, 512, 1024] as const
export const SPEEDS = [0.9, 0.95, 1, 1, 1, 1.05, 1.1] as const

/** Names of callers and team members. */
export const FIRST_NAMES = [
  'Maria',
  'James',
  'Aisha',
  'Daniel',
  'Priya',
  'Lucas',
  'Sofia',
  'Ethan',
  'Chloe',
  'Omar',
  'Hannah',
  'Mateo',
  'Grace',
  'Noah',
  'Yuki',
  'Liam',
  'Fatima',
  'Owen',
  'Elena',
  'Samuel',
  'Zoe',
  'Carlos',
  'Amelia',
  'Kwame',
  'Isla',
  'Diego',
  'Nora',
  'Raj',
  'Leah',
  'Marcus',
] as const

export const LAST_NAMES = [
  'Garcia',
  'Chen',
  'Okafor',
  'Patel',
  'Murphy',
  'Rossi',
  'Nguyen',
  'Kowalski',
  'Haddad',
  'Silva',
  'Johnson',
  'Tanaka',
  'Schmidt',
  'Brooks',
  'Mensah',
  'Larsen',
  'Ortiz',
  'Campbell',
  'Ibrahim',
  'Walsh',
] as const

/** Weekday names per language (the first subtag), for dates said aloud in transcripts. */
export const WEEKDAYS: Record<string, readonly string[]> = {
  en: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'],
  es: ['lunes', 'martes', 'miércoles', 'jueves', 'viernes', 'sábado'],
}
/** Appointment times said aloud. */
export const TIMES = [
  '9:00 am',
  '9:30 am',
  '10:15 am',
  '11:00 am',
  '11:45 am',
  '1:30 pm',
  '2:00 pm',
  '3:15 pm',
  '4:30 pm',
] as const

/** The demo account's owners and companies (reserved `.example` domains, RFC 2606). */
export const DEMO_OWNERS = [
  { name: 'Jordan Rivera', company: 'Northwind Voice Studio', domain: 'northwind-voice.example' },
  { name: 'Priya Raman', company: 'Bluebird Automation', domain: 'bluebird-automation.example' },
  { name: 'Alex Morgan', company: 'Harborlight Labs', domain: 'harborlight.example' },
  { name: 'Sam Okoro', company: 'Lattice CX', domain: 'lattice-cx.example' },
] as const

/** Regions of the personas and their fictional ("drama") number ranges, in E.164. */
export type Region = 'us' | 'uk' | 'au' | 'ca'

/** Hour offset of each region from UTC (standard time), to put calls in business hours. */
export const UTC_OFFSET_HOURS: Record<Region, number> = { us: -7, uk: 0, au: 10, ca: -5 }

const numbersByRegion = new Map<Region, readonly string[]>()

/** Numbers of the region's ranges reserved for fiction (NANP 555-01xx, Ofcom, ACMA), built once and shared. */
export function phoneNumbers(region: Region): readonly string[] {
  const cached = numbersByRegion.get(region)
  if (cached) return cached
  const out: string[] = []
  const add = (prefix: string, count: number, width: number) => {
    for (let n = 0; n < count; n++) out.push(prefix + String(n).padStart(width, '0'))
  }
  if (region === 'us')
    for (const area of ['415', '212', '312', '617', '206', '512']) add(`+1${area}55501`, 100, 2)
  if (region === 'ca') for (const area of ['416', '514', '604']) add(`+1${area}55501`, 100, 2)
  if (region === 'uk') {
    add('+4420794600', 100, 2)
    add('+4416149600', 100, 2)
    add('+447700900', 1000, 3)
  }
  if (region === 'au') {
    for (const prefix of ['+6125550', '+6137010', '+6175550', '+6185550']) add(prefix, 200, 4)
  }
  numbersByRegion.set(region, out)
  return out
}

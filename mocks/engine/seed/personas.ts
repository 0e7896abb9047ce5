import type { Persona } from './persona.ts'
import { HEALTH_PERSONAS } from './personas-health.ts'
import { RETAIL_PERSONAS } from './personas-retail.ts'
import { SERVICE_PERSONAS } from './personas-services.ts'

const ORDER = [
  'dental',
  'restaurant',
  'helpdesk',
  'vet-reminders',
  'energy',
  'pharmacy',
  'realty',
  'clinic-es',
]

/** Every persona, in the order agents are created (the first ones are the oldest agents). */
export const PERSONAS: readonly Persona[] = [
  ...HEALTH_PERSONAS,
  ...SERVICE_PERSONAS,
  ...RETAIL_PERSONAS,
].sort((a, b) => ORDER.indexOf(a.key) - ORDER.indexOf(b.key))
/** Branch suffixes that keep agent names distinct when there are more agents than personas. */
export const BRANCHES = [
  'East',
  'West',
  'North',
  'South',
  'Downtown',
  'Weekend',
  'After Hours',
  'Overflow',
] as const

/** Pet names for the vet reminders. */
export const PETS = ['Biscuit', 'Luna', 'Milo', 'Pepper', 'Daisy', 'Rufus', 'Willow', 'Teddy'] as const

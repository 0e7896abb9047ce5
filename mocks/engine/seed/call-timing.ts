import { UTC_OFFSET_HOURS } from './catalog.ts'
import type { Persona } from './persona.ts'
import type { Prng } from './prng.ts'
import { DAY, HOUR } from './time.ts'

/** Relative call volume per local hour of the day: quiet at night, busiest late morning and afternoon. */
const HOURLY = [
  0.02, 0.01, 0.01, 0.01, 0.01, 0.03, 0.08, 0.25, 0.6, 0.9, 1, 0.95, 0.8, 0.85, 0.95, 0.9, 0.8, 0.65, 0.5,
  0.4, 0.3, 0.2, 0.1, 0.05,
]
/** Evening-heavy profile for restaurant bookings. */
const EVENING = [
  0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.55, 0.5, 0.45, 0.55, 0.75, 0.95, 1,
  0.8, 0.5, 0.3, 0.1, 0.03,
]

/**
 * A start time in `[from, until]` that follows the persona's business hours in its region (rejection sampling),
 * in whole seconds.
 */
export function sampleStart(prng: Prng, persona: Persona, from: number, until: number): number {
  const offset = UTC_OFFSET_HOURS[persona.region] * HOUR
  const profile = persona.key === 'restaurant' ? EVENING : HOURLY
  for (let tries = 0; tries < 32; tries++) {
    const t = from + prng.next() * (until - from)
    const localHour = Math.floor(((((t + offset) % DAY) + DAY) % DAY) / HOUR)
    if (prng.next() < (profile[localHour] ?? 1)) return Math.floor(t / 1000) * 1000
  }
  return Math.floor((from + prng.next() * (until - from)) / 1000) * 1000
}

/** Dollars with at most 4 decimals (the contract's `cost_usd`). */
export const dollars = (value: number) => Math.round(value * 10_000) / 10_000

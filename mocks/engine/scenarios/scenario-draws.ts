import { createPrng } from '../seed/prng.ts'
import type { ScenarioDelay } from './scenario-table.ts'

/** The longest delay a scenario holds an answer back (a drawn one is capped here). */
export const MAX_DELAY_MS = 30_000

/**
 * The uniform numbers in [0, 1) of one draw of a scenario, from the mock's seeded random source: the same
 * seed, scenario (its place in the order of creation) and draw index give the same numbers in any process,
 * so a store shared by several processes sees the draws one process alone would make.
 */
export function drawsFor(seed: number, sequence: number, index: number): () => number {
  const prng = createPrng(seed, `scenario:${sequence}:${index}`)
  return () => prng.next()
}

/**
 * A delay in whole milliseconds: `fixed`, or drawn from a `uniform` or `lognormal` distribution (WireMock's
 * parameters: the median and the standard deviation of the natural logarithm), at most `MAX_DELAY_MS`.
 */
export function sampleDelay(delay: ScenarioDelay, next: () => number): number {
  let ms: number
  if (delay.type === 'fixed') ms = delay.ms
  else if (delay.type === 'uniform') ms = delay.min_ms + next() * (delay.max_ms - delay.min_ms)
  else ms = delay.median_ms * Math.exp(delay.sigma * standardNormal(next))
  return Math.min(MAX_DELAY_MS, Math.round(ms))
}

/** A standard normal draw from two uniform ones (Box-Muller). */
function standardNormal(next: () => number): number {
  // 1 - u is in (0, 1], so its logarithm is finite.
  const radius = Math.sqrt(-2 * Math.log(1 - next()))
  return radius * Math.cos(2 * Math.PI * next())
}

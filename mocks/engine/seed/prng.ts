const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** A seeded pseudo-random source (Mulberry32): the same seed gives the same sequence, everywhere. */
export interface Prng {
  /** A float in [0, 1). */
  next(): number
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number
  /** A float in [min, max). */
  float(min: number, max: number): number
  /** True with probability `p`. */
  chance(p: number): boolean
  /** One element of a non-empty list. */
  pick<T>(list: readonly T[]): T
  /** A 32-bit seed for another generator (json-schema-faker). */
  seed(): number
  /** An identifier with its type prefix and `length` base62 characters, e.g. `agt_8fK2mQx7Lr3Np9Ts`. */
  id(prefix: string, length?: number): string
  /** `length` characters drawn from `alphabet`. */
  chars(alphabet: string, length: number): string
}

/** FNV-1a of a label, mixed into a seed: independent, stable streams per concern (agents, calls, ...). */
export function deriveSeed(seed: number, label: string): number {
  let hash = 0x811c9dc5 ^ (seed | 0)
  for (let i = 0; i < label.length; i++) hash = Math.imul(hash ^ label.charCodeAt(i), 0x01000193)
  return hash >>> 0
}

/** Creates a Mulberry32 generator; `label` derives an independent stream from the same seed. */
export function createPrng(seed: number, label = ''): Prng {
  let state = deriveSeed(seed, label) | 0
  const next = () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1))
  const codes: number[] = []
  /** `head` then `length` characters of `alphabet`, as one flat string (ids are many and kept: no ropes). */
  const draw = (head: string, alphabet: string, length: number) => {
    codes.length = head.length + length
    for (let i = 0; i < head.length; i++) codes[i] = head.charCodeAt(i)
    for (let i = head.length; i < codes.length; i++)
      codes[i] = alphabet.charCodeAt(Math.floor(next() * alphabet.length))
    return String.fromCharCode.apply(null, codes)
  }
  return {
    next,
    int,
    float: (min, max) => min + next() * (max - min),
    chance: (p) => next() < p,
    pick<T>(list: readonly T[]): T {
      if (list.length === 0) throw new RangeError('pick() from an empty list')
      return list[Math.floor(next() * list.length)] as T
    },
    seed: () => Math.floor(next() * 4294967296),
    id: (prefix, length = 16) => draw(`${prefix}_`, BASE62, length),
    chars: (alphabet, length) => draw('', alphabet, length),
  }
}

/** Picks by weight: `weights[i]` is the relative chance of `items[i]`; items of weight 0 never come. */
export function weightedPicker<T>(items: readonly T[], weights: readonly number[]): (prng: Prng) => T {
  const cumulative: number[] = []
  let total = 0
  for (const weight of weights) {
    total += Math.max(0, weight)
    cumulative.push(total)
  }
  if (total <= 0 || items.length === 0) throw new RangeError('weightedPicker() needs a positive weight')
  return (prng) => {
    const target = prng.next() * total
    let lo = 0
    let hi = cumulative.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((cumulative[mid] as number) > target) hi = mid
      else lo = mid + 1
    }
    return items[lo] as T
  }
}

/** An index drawn by weight: `weights[i]` is the relative chance of `i`. */
export function weightedIndex(prng: Prng, weights: readonly number[]): number {
  let total = 0
  for (const weight of weights) total += weight
  let target = prng.next() * total
  for (let i = 0; i < weights.length; i++) {
    target -= weights[i] as number
    if (target < 0) return i
  }
  return weights.length - 1
}

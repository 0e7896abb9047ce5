/** The median: the middle value, or the mean of the two middle ones. */
function middle(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const half = sorted.length >> 1
  return sorted.length % 2 === 1
    ? (sorted[half] as number)
    : ((sorted[half - 1] as number) + (sorted[half] as number)) / 2
}

/** A ratio measured once per round (both sides in the same round), with its median and spread. */
export interface RatioSpread {
  /** The median of the rounds' ratios: what the run says. */
  median: number
  min: number
  max: number
  /** Each round's ratio, in order. */
  rounds: number[]
}

/**
 * The ratio `a[i] / b[i]` of each round, and their median and spread (NaN when a round is missing). Unrounded:
 * a target is judged on the figure itself, reports round it.
 */
export function ratioSpread(a: readonly number[], b: readonly number[]): RatioSpread {
  const rounds = a.map((value, i) => value / (b[i] ?? Number.NaN))
  if (rounds.length === 0 || rounds.some((ratio) => !Number.isFinite(ratio)))
    return { median: Number.NaN, min: Number.NaN, max: Number.NaN, rounds }
  return { median: middle(rounds), min: Math.min(...rounds), max: Math.max(...rounds), rounds }
}

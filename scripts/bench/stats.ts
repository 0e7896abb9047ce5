/** Latency figures in milliseconds. */
export interface LatencySummary {
  samples: number
  p50: number
  p99: number
  max: number
}

/** The `q`-quantile (0..1) of sorted values, nearest rank. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  return sorted[rank] as number
}

/** p50, p99 and max of a list of durations in ms. */
export function summarize(durations: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(durations).sort()
  return {
    samples: sorted.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted.length > 0 ? (sorted[sorted.length - 1] as number) : Number.NaN,
  }
}

/** The median of a few numbers (startup runs). */
export function median(values: readonly number[]): number {
  return quantile(Float64Array.from(values).sort(), 0.5)
}

/** Rounds to `digits` decimals, for JSON output. */
export function round(value: number, digits = 2): number {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}

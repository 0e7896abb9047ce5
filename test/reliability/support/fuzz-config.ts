import fc from 'fast-check'

/**
 * Seed and size of a fuzz run: `FUZZ_SEED=<n>` replays a run (`FUZZ_SEED=random` explores a fresh one),
 * `FUZZ_RUNS=<n>` scales it. The default seed is fixed so `npm test` is reproducible.
 */
export function fuzzConfig(defaultSeed: number, defaultRuns: number): { seed: number; runs: number } {
  const raw = process.env.FUZZ_SEED
  const seed =
    raw === 'random' ? Math.floor(Math.random() * 2 ** 31) : raw !== undefined ? Number(raw) : defaultSeed
  const runs = process.env.FUZZ_RUNS !== undefined ? Number(process.env.FUZZ_RUNS) : defaultRuns
  if (!Number.isInteger(seed)) throw new Error(`FUZZ_SEED must be an integer or 'random', not ${raw}`)
  return { seed, runs }
}

/** `fc.assert` whose failure message stays readable (counterexamples may hold megabyte bodies). */
export async function assertFuzz<T>(property: fc.IAsyncProperty<T>, params: fc.Parameters<T>): Promise<void> {
  try {
    await fc.assert(property, params)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    if (message.length <= 6_000) throw error
    throw new Error(
      `${message.slice(0, 3_000)}\n[... ${message.length - 6_000} characters ...]\n${message.slice(-3_000)}`,
      {
        cause: error instanceof Error ? error.cause : undefined,
      },
    )
  }
}

import { ContractFailure } from '../checks/failure.ts'
import type { ContractCheck } from '../checks/types.ts'
import { differenceLine, formatScript, formatSteps } from './difference-report.ts'
import type { ExploreResult } from './explore.ts'
import { type ModelFactory, targetSide } from './sides.ts'

/** How the exploration check explores. */
export interface ExplorationOptions {
  /** The seed (default: a random one, printed). */
  seed?: number
  /** Seconds to explore (default 10), unless `sequences` is given. */
  seconds?: number
  /** Run exactly this many sequences instead of exploring for a time. */
  sequences?: number
  /** Most steps in a sequence (default 50). */
  maxSteps?: number
  /** Seconds shrinking a difference may take (default: half the search time, at least 4.5 s). */
  shrinkSeconds?: number
  /** Makes the model's platform (default: a fresh in-process mock). */
  model?: ModelFactory
  /** Told the outcome of every exploration, whatever it found (tests, the CLI's summary). */
  onResult?: (result: ExploreResult) => void
}

/** A failure whose report carries the numbered steps and the script besides the expectation. */
export class ExplorationFailure extends ContractFailure {
  constructor(
    expected: string,
    actual: string,
    readonly more: { steps: string; script: string },
  ) {
    super(expected, actual)
    this.name = 'ExplorationFailure'
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

/** A fresh random seed (31 bits, printable and given back with --seed). */
const randomSeed = () => (crypto.getRandomValues(new Uint32Array(1))[0] as number) >>> 1

/** How many of the latest keys an answer is searched for, besides the run's own. */
const RECENT_KEYS = 256

/**
 * Every key value the exploration saw (reports redact them all), remembering the latest ones: each answer is
 * searched for the run's keys and the latest `RECENT_KEYS` (the sequence's own and its predecessors', whose
 * accounts are deleted), not for every key of a long run, which made a run of 2,000 sequences slow down as it
 * went (each answer searched for some 80,000 keys).
 */
class SeenKeys extends Set<string> {
  private readonly latest: string[] = []

  override add(value: string): this {
    if (!this.has(value)) {
      this.latest.push(value)
      if (this.latest.length > RECENT_KEYS) this.latest.shift()
    }
    return super.add(value)
  }

  /** The latest keys, oldest first. */
  recent(): readonly string[] {
    return this.latest
  }
}

/** Whether an import failed because the package `name` is not installed. */
const isMissing = (error: unknown, name: string) =>
  (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' &&
  String((error as Error).message).includes(`'${name}'`)

/**
 * The explorer, loaded when a run explores: it generates with fast-check, an optional peer of this package
 * (frontend projects, which never explore, do not install it). Undefined when fast-check is not installed.
 */
async function loadExplorer(): Promise<typeof import('./explore.ts') | undefined> {
  try {
    return await import('./explore.ts')
  } catch (error) {
    if (isMissing(error, 'fast-check')) return undefined
    throw error
  }
}

/**
 * Differential exploration as a check of the suite (area `explore`): with `--destructive` and a target whose
 * control plane provisions accounts, keys and clock moves (`--provision mock`), random sequences of v1 requests
 * run against the target and against the mock's engine in this process, set up the same way; the first
 * difference fails the check with the shrunk sequence as numbered steps and as a runnable script. With a fixed
 * seed and a number of sequences it is deterministic (the mutation run calls it so).
 */
export function explorationCheck(options: ExplorationOptions = {}): ContractCheck {
  return {
    id: 'explore/differential',
    area: 'explore',
    group: 'Differential exploration',
    title: 'answers every generated sequence of requests as the model does',
    needs: ['write', 'clock'],
    // It moves the clock by days: alone, after the others.
    exclusive: true,
    async run(ctx) {
      const seed = options.seed ?? ctx.target.seed ?? randomSeed()
      const sequences = options.sequences ?? ctx.target.exploreSequences
      const time = options.seconds ?? ctx.target.exploreSeconds
      const runKeys = ctx.keys.secrets()
      const secrets = new SeenKeys()
      for (const key of runKeys) secrets.add(key)
      const bound = sequences !== undefined ? `${sequences} sequences` : `up to ${time ?? 10} s`
      const explorer = await loadExplorer()
      if (!explorer)
        return ctx.skip(
          'exploration generates its requests with fast-check, an optional peer of voice-api-kit: npm install --save-dev fast-check',
        )
      const { explore } = explorer
      ctx.progress?.(`exploring with seed ${seed} (${bound}; replay with --seed ${seed})`)
      const result = await explore({
        contract: ctx.contract,
        target: targetSide(ctx, () => [...runKeys, ...secrets.recent()]),
        seed,
        timeMs: time === undefined ? undefined : time * 1000,
        sequences,
        maxSteps: options.maxSteps,
        shrinkMs: options.shrinkSeconds === undefined ? undefined : options.shrinkSeconds * 1000,
        label: `${ctx.runId}-${seed}`,
        model: options.model,
        secrets,
        onProgress: (p) =>
          ctx.progress?.(
            `${p.phase}: ${p.sequences} sequence(s), ${p.requests} request(s), ${seconds(p.elapsedMs)} (seed ${seed})`,
          ),
      })
      options.onResult?.(result)
      const figures = `${result.sequences} sequence(s), ${result.requests} request(s) in ${seconds(result.durationMs)}, seed ${seed}`
      ctx.note(`explored ${figures}`)
      if (result.unconfirmed)
        ctx.note(
          `a difference did not happen again when replayed (not failed): ${differenceLine(result.unconfirmed)}`,
        )
      if (result.difference) {
        const found = result.difference
        ctx.progress?.(`found a difference after ${figures}`)
        throw new ExplorationFailure(
          'the target answers every step as the model does (the mock engine set up the same way, answers compared as the contract reads them)',
          `${differenceLine(found)} (seed ${seed}; replay with --area explore --seed ${seed})`,
          { steps: formatSteps(found, seed, secrets), script: formatScript(found, seed, secrets) },
        )
      }
      ctx.progress?.(`no difference: ${figures}${result.stopped ? `; stopped early: ${result.stopped}` : ''}`)
      if (result.sequences === 0 && result.stopped) ctx.skip(`exploration could not run: ${result.stopped}`)
    },
  }
}

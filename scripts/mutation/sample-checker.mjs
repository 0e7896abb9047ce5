// @ts-check
/**
 * A StrykerJS checker (https://stryker-mutator.io/docs/stryker-js/plugins/#checkers) that tests a random sample
 * of the mutants and sets the others aside, for `npm run mutants -- --sample <fraction>`: a run whose every
 * mutant would take hours on this machine gives an estimated score, with its interval, in a fraction of the time.
 *
 * Each mutant is in or out by a hash of what it is (file, place, mutator, replacement) and the seed, so a sample
 * is the same on every machine and every run with the same seed. A mutant out of the sample is reported as a
 * compile error with the reason below, which keeps it out of every score (scripts/mutation/scores.ts reads that
 * reason to tell a sampled run from a full one). The checker runs before Stryker decides "no coverage", so the
 * sample is drawn from every mutant alike.
 *
 * Set by scripts/mutants.ts through the environment: VOICE_MUTANT_SAMPLE (a fraction in (0, 1]) and
 * VOICE_MUTANT_SAMPLE_SEED (an integer).
 */
import { CheckStatus } from '@stryker-mutator/api/check'
import { commonTokens, declareClassPlugin, PluginKind, tokens } from '@stryker-mutator/api/plugin'

/** The reason a mutant out of the sample carries in the report. */
export const OUTSIDE_SAMPLE = 'Outside the sample'

/** The path of a mutated file relative to the project, wherever Stryker put its copy. */
export function projectPath(fileName) {
  const normal = String(fileName).replace(/\\/g, '/')
  const sandbox = normal.match(/\.stryker-tmp\/sandbox-[^/]+\/(.*)$/)
  if (sandbox) return sandbox[1]
  const cwd = process.cwd().replace(/\\/g, '/')
  return normal.startsWith(`${cwd}/`) ? normal.slice(cwd.length + 1) : normal
}

/** 32-bit FNV-1a of a text, its bits mixed (MurmurHash3's finaliser), as a fraction of 2^32. */
function unitHash(text) {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b)
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35)
  return ((hash ^ (hash >>> 16)) >>> 0) / 2 ** 32
}

/**
 * Whether a mutant is in the sample of `fraction` drawn with `seed`.
 * @param {{ fileName: string, location: { start: { line: number, column: number } }, mutatorName: string, replacement?: string }} mutant
 */
export function inSample(mutant, fraction, seed) {
  const { line, column } = mutant.location.start
  const what = `${projectPath(mutant.fileName)}:${line}:${column}:${mutant.mutatorName}:${mutant.replacement ?? ''}`
  return unitHash(`${seed}\n${what}`) < fraction
}

/** The sample the environment asks for; throws on a value that is not one. */
export function sampleFromEnvironment(env = process.env) {
  const fraction = Number(env.VOICE_MUTANT_SAMPLE)
  const seed = Number(env.VOICE_MUTANT_SAMPLE_SEED ?? 1)
  if (!(fraction > 0 && fraction <= 1))
    throw new Error(`VOICE_MUTANT_SAMPLE must be a fraction in (0, 1], not '${env.VOICE_MUTANT_SAMPLE}'`)
  if (!Number.isInteger(seed))
    throw new Error(`VOICE_MUTANT_SAMPLE_SEED must be an integer, not '${env.VOICE_MUTANT_SAMPLE_SEED}'`)
  return { fraction, seed }
}

class SampleChecker {
  static inject = tokens(commonTokens.logger)

  /** @param {import('@stryker-mutator/api/logging').Logger} log */
  constructor(log) {
    this.log = log
    this.sample = { fraction: 1, seed: 1 }
  }

  async init() {
    this.sample = sampleFromEnvironment()
    this.log.info(`Testing a sample of ${this.sample.fraction} of the mutants (seed ${this.sample.seed}).`)
  }

  /** @param {import('@stryker-mutator/api/core').Mutant[]} mutants */
  async check(mutants) {
    /** @type {Record<string, import('@stryker-mutator/api/check').CheckResult>} */
    const results = {}
    for (const mutant of mutants)
      results[mutant.id] = inSample(mutant, this.sample.fraction, this.sample.seed)
        ? { status: CheckStatus.Passed }
        : {
            status: CheckStatus.CompileError,
            reason: `${OUTSIDE_SAMPLE} (${this.sample.fraction}, seed ${this.sample.seed}): not tested`,
          }
    return results
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.Checker, 'sample', SampleChecker)]

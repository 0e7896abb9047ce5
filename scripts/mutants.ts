/**
 * `npm run mutants`: mutation testing of the engine (StrykerJS), in two runs whose scope is
 * docs/decisions/015-mutation-scope.md: the contract run (stryker.config.mjs: the modules the v1 API shows,
 * killed by the contract suite) and, with `--own-tests`, the own-tests run (stryker.own-tests.config.mjs: the
 * modules it cannot show, killed by the project's own tests). Prints the per-file scores, writes Stryker's
 * HTML and JSON reports under reports/, and exits 1 when a threshold is missed. In CI (`--ci`) it exits 1
 * only on a regression: a file, or the whole run, under its threshold and under the score the committed
 * baseline has for it.
 *
 *   npm run mutants                                  the contract run in full; refreshes its baseline
 *   npm run mutants -- --own-tests                   the own-tests run in full; refreshes its baseline
 *   npm run mutants -- --mutate mocks/engine/auth.ts  only these files (thresholds of the files present)
 *   npm run mutants:ci                               both runs, incremental: re-tests only mutants in changed
 *                                                    code, and fails on a regression against the baselines
 *   npm run mutants -- --markdown                    also print the table as Markdown (the docs' figure)
 *   npm run mutants -- --own-tests --sample 0.2      a random fifth of the mutants (--seed <n>, default 1): an
 *                                                    estimated score with its 95% interval, the baseline left alone
 *
 * Other arguments go to `stryker run` (e.g. `--concurrency 1`).
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { REPO_ROOT } from './lib/repo-root.ts'
import { baselineStaleness, isFresh, staleMutants, testChanges } from './mutation/baseline-freshness.ts'
import { CONTRACT_RUN_MUTATES, OWN_TESTS_MODULES } from './mutation/scope.mjs'
import {
  explorationShare,
  fileScores,
  markdownTable,
  OWN_TESTS_THRESHOLDS,
  regressions,
  sampleEstimate,
  shortfalls,
  THRESHOLDS,
  textTable,
} from './mutation/scores.ts'

/** The two runs: their configuration, report, committed baseline and thresholds. */
const RUNS = {
  contract: {
    name: 'the contract run',
    config: 'stryker.config.mjs',
    report: 'reports/mutation/mutation.json',
    baseline: 'test/mutants/stryker-incremental.json',
    thresholds: THRESHOLDS,
    mutate: CONTRACT_RUN_MUTATES,
  },
  ownTests: {
    name: 'the own-tests run',
    config: 'stryker.own-tests.config.mjs',
    report: 'reports/mutation-own-tests/mutation.json',
    baseline: 'test/mutants/own-tests-incremental.json',
    thresholds: OWN_TESTS_THRESHOLDS,
    mutate: OWN_TESTS_MODULES,
  },
} as const

/** Lines as an indented list, one `  - ` per line. */
const bullets = (lines: readonly string[]) => lines.map((line) => `  - ${line}`).join('\n')

const args = process.argv.slice(2)
const ci = args.includes('--ci')
const markdown = args.includes('--markdown')
const run = args.includes('--own-tests') ? RUNS.ownTests : RUNS.contract
const REPORT = join(REPO_ROOT, run.report)
const BASELINE = join(REPO_ROOT, run.baseline)

/** The value after `flag`, removed from `args` with it; undefined when absent. */
function takeValue(flag: string): string | undefined {
  const at = args.indexOf(flag)
  if (at < 0) return undefined
  const [, value] = args.splice(at, 2)
  if (value === undefined || value.startsWith('--')) {
    console.error(`mutants: ${flag} needs a value (see the comment at the top of scripts/mutants.ts)`)
    process.exit(2)
  }
  return value
}
const sample = takeValue('--sample')
const seed = takeValue('--seed') ?? '1'
if (sample !== undefined && !(Number(sample) > 0 && Number(sample) <= 1)) {
  console.error(`mutants: --sample takes a fraction in (0, 1], such as 0.2; got '${sample}'`)
  process.exit(2)
}
if (!/^\d+$/.test(seed)) {
  console.error(`mutants: --seed takes a whole number; got '${seed}'`)
  process.exit(2)
}
if (sample !== undefined && ci) {
  console.error('mutants: --sample is for an estimate by hand; CI judges whole runs against the baselines')
  process.exit(2)
}
const passed = args.filter((arg) => !['--ci', '--markdown', '--own-tests'].includes(arg))
/** Some files only (`--mutate`): the overall threshold is not judged. A sample judges it by its estimate. */
const subset = passed.some((arg) => arg === '--mutate' || arg === '-m' || arg.startsWith('--mutate='))
const partial = subset || sample !== undefined
// A partial or sampled run leaves the committed baseline alone; a full run rewrites it; CI reuses it.
const mode = partial ? [] : ci ? ['--incremental'] : ['--incremental', '--force']
const sampling = sample === undefined ? [] : ['--checkers', 'sample']

/**
 * What CI's time holds for re-testing changed code: about 8 minutes, at the 3.3 s a mutant took in CI's last
 * full contract run (2 workers, 1,440 mutants in 79 minutes).
 */
const CI_BUDGET_SECONDS = 8 * 60
const SECONDS_PER_MUTANT = 3.3
const refresh = `npm run mutants${run === RUNS.ownTests ? ' -- --own-tests' : ''}`

/**
 * The run's tests by name as Stryker records them (`describe` and test joined by a space), from `vitest list`
 * with the Vitest configuration the run's Stryker configuration names; undefined when Vitest cannot list them (the
 * estimate then leaves tests out).
 */
async function testNames(strykerConfig: string): Promise<string[] | undefined> {
  const stryker = (await import(pathToFileURL(join(REPO_ROOT, strykerConfig)).href)) as {
    default: { vitest: { configFile: string } }
  }
  const vitestConfig = stryker.default.vitest.configFile
  const file = join(REPO_ROOT, 'reports', `vitest-list-${process.pid}.json`)
  const listed = spawnSync(
    join(REPO_ROOT, 'node_modules/.bin/vitest'),
    ['list', '--config', vitestConfig, `--json=${file}`],
    { cwd: REPO_ROOT, stdio: 'ignore' },
  )
  try {
    if (listed.status !== 0) return undefined
    return (JSON.parse(readFileSync(file, 'utf8')) as { name: string }[]).map((test) =>
      test.name.split(' > ').join(' '),
    )
  } catch {
    return undefined
  } finally {
    rmSync(file, { force: true })
  }
}

/** CI does not judge this run: says why, loudly, and how to make it judgeable again. */
function notJudged(reason: string): never {
  console.log(
    `\nmutants: ${run.name} NOT JUDGED in CI: ${reason}\n  A full run (\`${refresh}\`, hours on two cores) writes ${run.baseline}; commit it and CI re-tests only what changes after it.`,
  )
  process.exit(0)
}

// Read before Stryker runs: an incremental run rewrites the baseline file with its own results.
let baseline: ReturnType<typeof fileScores> | undefined
if (ci) {
  let recorded: Parameters<typeof baselineStaleness>[2]
  try {
    recorded = JSON.parse(readFileSync(BASELINE, 'utf8'))
    baseline = fileScores(recorded as never)
  } catch (error) {
    notJudged(`no readable baseline at ${run.baseline} (${(error as Error).message})`)
  }
  const staleness = baselineStaleness(REPO_ROOT, run.mutate, recorded)
  // Stryker knows tests by name (the contract run names each check by what it is): a renamed test is a new one.
  const names = await testNames(run.config)
  const tests = names ? testChanges(recorded as never, names) : undefined
  const mutants = staleMutants(REPO_ROOT, staleness, recorded, tests)
  if (!isFresh(staleness) || (tests && (tests.gone.size > 0 || tests.added > 0))) {
    const list = (files: string[]) =>
      files.length > 6 ? `${files.slice(0, 6).join(', ')} and ${files.length - 6} more` : files.join(', ')
    console.log(
      `mutants: ${run.name}: since the baseline, ${staleness.changed.length} mutated file(s) changed or are new${staleness.changed.length ? ` (${list(staleness.changed)})` : ''}, ${staleness.gone.length} gone, ${staleness.tests.length} test file(s) changed${tests ? `, ${tests.gone.size} test(s) gone or changed and ${tests.added} new` : ''}: about ${mutants} mutant(s) to re-test`,
    )
    if (mutants * SECONDS_PER_MUTANT > CI_BUDGET_SECONDS)
      notJudged(
        `re-testing about ${mutants} mutants takes about ${Math.round((mutants * SECONDS_PER_MUTANT) / 60)} minutes, more than CI's ${CI_BUDGET_SECONDS / 60}`,
      )
  }
}

const started = performance.now()
const stryker = spawnSync(
  join(REPO_ROOT, 'node_modules/.bin/stryker'),
  ['run', run.config, ...mode, ...sampling, ...passed],
  {
    cwd: REPO_ROOT,
    stdio: 'inherit',
    env:
      sample === undefined
        ? process.env
        : { ...process.env, VOICE_MUTANT_SAMPLE: sample, VOICE_MUTANT_SAMPLE_SEED: seed },
  },
)
const seconds = (performance.now() - started) / 1000
if (stryker.error) {
  console.error(`mutants: cannot run Stryker: ${stryker.error.message}`)
  process.exit(2)
}

let report: Parameters<typeof fileScores>[0] & Parameters<typeof explorationShare>[0]
let scores: ReturnType<typeof fileScores>
try {
  report = JSON.parse(readFileSync(REPORT, 'utf8'))
  scores = fileScores(report)
} catch (error) {
  console.error(
    `mutants: Stryker wrote no readable report (${(error as Error).message}); exit code ${stryker.status}`,
  )
  process.exit(1)
}
console.log(
  `\nMutation scores, ${run.name} (${new Date().toISOString().slice(0, 10)}, ${seconds.toFixed(0)} s):\n`,
)
console.log(textTable(scores))
if (markdown) console.log(`\n${markdownTable(scores)}`)
if (run === RUNS.contract) {
  const share = explorationShare(report, scores.total)
  if (share.killedOnlyByExploration > 0)
    console.log(
      `\nKilled by exploration alone (every hand-written check that reaches them passed): ${share.killedOnlyByExploration}. Without exploration the run would score ${share.scoreWithout.toFixed(2)}%.`,
    )
}
const estimate = sampleEstimate(scores.total)
if (estimate)
  console.log(
    `\nA sample (--sample ${sample}, --seed ${seed}): ${estimate.tested} of ${estimate.of} mutants tested. Estimated score of the whole run: ${estimate.score.toFixed(1)}% (95% interval ${estimate.low.toFixed(1)}-${estimate.high.toFixed(1)}%); the per-file figures above are of the sample only.`,
  )
if (baseline) {
  const problems = regressions(scores, baseline, run.thresholds)
  const missed = shortfalls(scores, run.thresholds)
  if (missed.length > 0)
    console.log(`\nBelow the thresholds (as in the baseline, so not a failure here):\n${bullets(missed)}`)
  if (problems.length > 0) {
    console.error(`\nWorse than the committed baseline:\n${bullets(problems)}`)
    process.exit(1)
  }
  console.log('\nNo file and not the engine scores below its threshold or its committed baseline.')
  process.exit(stryker.status === 0 ? 0 : 1)
}
const problems = shortfalls(scores, run.thresholds, { partial: subset })
if (problems.length > 0) {
  console.error(`\nBelow the thresholds:\n${bullets(problems)}`)
  process.exit(1)
}
console.log('\nEvery threshold is met.')
process.exit(stryker.status === 0 ? 0 : 1)

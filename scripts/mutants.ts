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
 *
 * Other arguments go to `stryker run` (e.g. `--concurrency 1`).
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT } from './lib/repo-root.ts'
import {
  fileScores,
  markdownTable,
  OWN_TESTS_THRESHOLDS,
  regressions,
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
  },
  ownTests: {
    name: 'the own-tests run',
    config: 'stryker.own-tests.config.mjs',
    report: 'reports/mutation-own-tests/mutation.json',
    baseline: 'test/mutants/own-tests-incremental.json',
    thresholds: OWN_TESTS_THRESHOLDS,
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
const passed = args.filter((arg) => !['--ci', '--markdown', '--own-tests'].includes(arg))
const partial = passed.some((arg) => arg === '--mutate' || arg === '-m' || arg.startsWith('--mutate='))
// A partial run leaves the committed baseline alone; a full run rewrites it; CI reuses it.
const mode = partial ? [] : ci ? ['--incremental'] : ['--incremental', '--force']

// Read before Stryker runs: an incremental run rewrites the baseline file with its own results.
let baseline: ReturnType<typeof fileScores> | undefined
if (ci) {
  try {
    baseline = fileScores(JSON.parse(readFileSync(BASELINE, 'utf8')))
  } catch (error) {
    console.error(
      `mutants: no readable baseline at ${run.baseline} (${(error as Error).message}); a full run (\`npm run mutants\`${run === RUNS.ownTests ? ' -- --own-tests' : ''}) makes one`,
    )
    process.exit(2)
  }
}

const started = performance.now()
const stryker = spawnSync(
  join(REPO_ROOT, 'node_modules/.bin/stryker'),
  ['run', run.config, ...mode, ...passed],
  {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  },
)
const seconds = (performance.now() - started) / 1000
if (stryker.error) {
  console.error(`mutants: cannot run Stryker: ${stryker.error.message}`)
  process.exit(2)
}

let scores: ReturnType<typeof fileScores>
try {
  scores = fileScores(JSON.parse(readFileSync(REPORT, 'utf8')))
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
const problems = shortfalls(scores, run.thresholds, { partial })
if (problems.length > 0) {
  console.error(`\nBelow the thresholds:\n${bullets(problems)}`)
  process.exit(1)
}
console.log('\nEvery threshold is met.')
process.exit(stryker.status === 0 ? 0 : 1)

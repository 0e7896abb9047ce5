/**
 * `npm run mutants`: mutation testing of the engine (StrykerJS, stryker.config.mjs), killed by the contract
 * suite. Prints Stryker's per-file scores, writes its HTML and JSON reports to reports/mutation/, and
 * exits 1 when a threshold is missed (80% overall, 90% on the files that guard access and limits). In CI
 * (`--ci`) it exits 1 only on a regression: a file, or the whole engine, under its threshold and under the
 * score the committed baseline (test/mutants/stryker-incremental.json) has for it.
 *
 *   npm run mutants                                  full run; refreshes test/mutants/stryker-incremental.json
 *   npm run mutants -- --mutate mocks/engine/auth.ts  only these files (thresholds of the files present)
 *   npm run mutants:ci                               incremental: re-tests only mutants in changed code, and
 *                                                    fails on a regression against the committed baseline
 *   npm run mutants -- --markdown                    also print the table as Markdown (the README figure)
 *
 * Other arguments go to `stryker run` (e.g. `--concurrency 1`).
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT } from './lib/repo-root.ts'
import { fileScores, markdownTable, regressions, shortfalls, textTable } from './mutation/scores.ts'

const REPORT = join(REPO_ROOT, 'reports/mutation/mutation.json')
const BASELINE = join(REPO_ROOT, 'test/mutants/stryker-incremental.json')

/** Lines as an indented list, one `  - ` per line. */
const bullets = (lines: readonly string[]) => lines.map((line) => `  - ${line}`).join('\n')

const args = process.argv.slice(2)
const ci = args.includes('--ci')
const markdown = args.includes('--markdown')
const passed = args.filter((arg) => arg !== '--ci' && arg !== '--markdown')
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
      `mutants: no readable baseline at test/mutants/stryker-incremental.json (${(error as Error).message}); \`npm run mutants\` makes one`,
    )
    process.exit(2)
  }
}

const started = performance.now()
const stryker = spawnSync(join(REPO_ROOT, 'node_modules/.bin/stryker'), ['run', ...mode, ...passed], {
  cwd: REPO_ROOT,
  stdio: 'inherit',
})
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
console.log(`\nMutation scores (${new Date().toISOString().slice(0, 10)}, ${seconds.toFixed(0)} s):\n`)
console.log(textTable(scores))
if (markdown) console.log(`\n${markdownTable(scores)}`)
if (baseline) {
  const problems = regressions(scores, baseline)
  const missed = shortfalls(scores)
  if (missed.length > 0)
    console.log(`\nBelow the thresholds (as in the baseline, so not a failure here):\n${bullets(missed)}`)
  if (problems.length > 0) {
    console.error(`\nWorse than the committed baseline:\n${bullets(problems)}`)
    process.exit(1)
  }
  console.log('\nNo file and not the engine scores below its threshold or its committed baseline.')
  process.exit(stryker.status === 0 ? 0 : 1)
}
const problems = shortfalls(scores, undefined, { partial })
if (problems.length > 0) {
  console.error(`\nBelow the thresholds:\n${bullets(problems)}`)
  process.exit(1)
}
console.log('\nEvery threshold is met.')
process.exit(stryker.status === 0 ? 0 : 1)

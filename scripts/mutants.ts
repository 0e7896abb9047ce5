/**
 * `npm run mutants`: the mutation harness. Runs the contract suite in-process against every faulty
 * variant of the mock (test/mutants/faults.ts) and prints the score and the survivors. Exit code 1 when
 * the score is under 95%. Checks that fail against the unmodified mock are named and left out of the
 * mutant runs (they could not tell a fault from the mock's own drift).
 *
 *   npm run mutants                    every mutant
 *   npm run mutants -- has-more-wrong  only the named ones
 */
import { MUTANTS } from '../test/mutants/faults.ts'
import { runMutationHarness } from '../test/mutants/run-mutants.ts'

const REQUIRED_SCORE = 95

const only = process.argv.slice(2)
const faults = MUTANTS.map((m) => m.fault).filter((f) => only.length === 0 || only.includes(f))
const unknown = only.filter((f) => !MUTANTS.some((m) => m.fault === f))
if (unknown.length > 0) {
  console.error(`Unknown mutant(s): ${unknown.join(', ')}`)
  process.exit(2)
}

console.log(
  `Mutation harness: ${faults.length} faulty variants of the mock, the contract suite against each.\n`,
)
const report = await runMutationHarness(faults, (r) => {
  const fate = r.killed ? `killed by ${r.killedBy}` : 'SURVIVED'
  console.log(
    `  ${r.killed ? 'killed  ' : 'SURVIVED'} ${r.fault.padEnd(34)} ${(r.durationMs / 1000).toFixed(2)} s  ${r.killed ? fate.slice(10) : ''}`,
  )
})
if (report.baselineFailures.length > 0)
  console.log(
    `\nWarning: ${report.baselineFailures.length} check(s) fail against the unmodified mock and were left out: ${report.baselineFailures.join(', ')}`,
  )
const survivors = report.results.filter((r) => !r.killed)
const killed = report.results.length - survivors.length
console.log(
  `\nMutation score: ${report.score.toFixed(1)}% (${killed} of ${report.results.length} killed) in ${(report.durationMs / 1000).toFixed(1)} s`,
)
if (survivors.length > 0) {
  console.log('Survivors:')
  for (const s of survivors)
    console.log(`  - ${s.fault}: ${MUTANTS.find((m) => m.fault === s.fault)?.breaks ?? ''}`)
} else console.log('Survivors: none')
process.exitCode = report.score >= REQUIRED_SCORE ? 0 : 1

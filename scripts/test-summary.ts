/**
 * Prints the plain closing line of a Vitest run, `N passed, N failed, N skipped`, from the JSON report
 * that vitest.config.ts writes (`test-results/vitest.json`). Exits 1 when the report is missing.
 */
import { readFileSync } from 'node:fs'

const REPORT = 'test-results/vitest.json'

try {
  const report = JSON.parse(readFileSync(REPORT, 'utf8')) as {
    numPassedTests: number
    numFailedTests: number
    numPendingTests: number
    numTodoTests: number
  }
  console.log(
    `${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests + report.numTodoTests} skipped`,
  )
} catch (error) {
  console.error(`test-summary: cannot read ${REPORT}: ${(error as Error).message}`)
  process.exit(1)
}

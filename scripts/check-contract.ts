/**
 * Contract checks of the OpenAPI documents, each shown with counts and every failure's path:
 *   1. the official OpenAPI 3.1 schema (with the OAS dialect for Schema Objects),
 *   2. Spectral with the project ruleset (`contract-rules/`; v1-only rules skip mock-control),
 *   3. every example against its schema (Ajv 2020-12 + ajv-formats).
 *
 *   npm run lint:contract [-- file.yaml ...]   exit 1 when any check fails
 */
import { relative } from 'node:path'
import type { ContractProfile } from '../contract-rules/index.ts'
import { checkExamples } from './lib/check-examples.ts'
import { checkOasSchema } from './lib/check-oas-schema.ts'
import { type CheckResult, formatCheckResult, passed } from './lib/check-result.ts'
import { checkSpectral } from './lib/check-spectral.ts'
import { CONTRACT_DOCUMENTS, profileOf } from './lib/contract-documents.ts'
import { isMain } from './lib/is-main.ts'
import { REPO_ROOT } from './lib/repo-root.ts'

export { checkExamples } from './lib/check-examples.ts'
export { checkOasSchema } from './lib/check-oas-schema.ts'
export { checkSpectral } from './lib/check-spectral.ts'

/** Runs a check; a check that throws (unreadable file, YAML syntax error) becomes a failure. */
async function guarded(check: string, file: string, run: () => Promise<CheckResult>): Promise<CheckResult> {
  try {
    return await run()
  } catch (error) {
    const message = error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error)
    return { check, file, summary: 'could not run', failures: [{ path: '$', message }], notes: [] }
  }
}

/** Runs the three checks on one document; the profile defaults to the one its name implies. */
export async function checkDocument(
  file: string,
  profile: ContractProfile = profileOf(file),
): Promise<CheckResult[]> {
  return [
    await guarded('OpenAPI 3.1 schema', file, () => checkOasSchema(file)),
    await guarded(`Spectral (${profile} ruleset)`, file, () => checkSpectral(file, profile)),
    await guarded('examples', file, () => checkExamples(file)),
  ]
}

/** Runs every check on every document and prints the report; resolves to the exit code. */
export async function checkContract(files: string[]): Promise<number> {
  const started = performance.now()
  let failed = 0
  for (const file of files) {
    console.log(relative(process.cwd(), file) || file)
    for (const result of await checkDocument(file)) {
      console.log(formatCheckResult(result))
      if (!passed(result)) failed++
    }
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  const verdict = failed === 0 ? 'all contract checks passed' : `${failed} contract check(s) failed`
  console.log(`${verdict} (${files.length} documents, ${seconds} s)`)
  return failed === 0 ? 0 : 1
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2)
  const files =
    args.length > 0 ? args : CONTRACT_DOCUMENTS.map((document) => `${REPO_ROOT}${document.source}`)
  checkContract(files).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    },
  )
}

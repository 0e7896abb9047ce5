import { readFile } from 'node:fs/promises'
import { Document, type ISpectralDiagnostic, Spectral } from '@stoplight/spectral-core'
import parsers from '@stoplight/spectral-parsers'
import { type ContractProfile, rulesetFor } from '../../contract-rules/index.ts'
import { type CheckResult, type Finding, plural } from './check-result.ts'
import { formatPath } from './json.ts'

/** Spectral's numeric severities. */
const ERROR = 0
const WARNING = 1

/** Turns a Spectral diagnostic into a finding. */
function toFinding(diagnostic: ISpectralDiagnostic): Finding {
  return {
    rule: String(diagnostic.code),
    path: formatPath(diagnostic.path),
    line: diagnostic.range.start.line + 1,
    message: diagnostic.message,
  }
}

/**
 * Lints an OpenAPI document with Spectral and the project ruleset for its profile. Errors and
 * warnings fail the check; information and hints are listed as notes.
 */
export async function checkSpectral(file: string, profile: ContractProfile): Promise<CheckResult> {
  const spectral = new Spectral()
  spectral.setRuleset(rulesetFor(profile))
  const document = new Document(await readFile(file, 'utf8'), parsers.Yaml, file)
  const diagnostics = await spectral.run(document)
  const failures = diagnostics.filter((d) => d.severity <= WARNING).map(toFinding)
  const notes = diagnostics.filter((d) => d.severity > WARNING).map(toFinding)
  const errors = diagnostics.filter((d) => d.severity === ERROR).length
  return {
    check: `Spectral (${profile} ruleset)`,
    file,
    summary: `${plural(errors, 'error')}, ${plural(failures.length - errors, 'warning')}, ${plural(notes.length, 'note')}`,
    failures,
    notes,
  }
}

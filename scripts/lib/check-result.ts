/** One problem found by a contract check. */
export interface Finding {
  /** Where in the document, for people (`paths["/agents"].get.responses`). */
  path: string
  message: string
  /** The rule that fired, when the check has named rules (Spectral). */
  rule?: string
  /** 1-based line in the source file, when known. */
  line?: number
}

/** The outcome of one check on one document. */
export interface CheckResult {
  /** Short name of the check (`OpenAPI 3.1 schema`, `Spectral`, `examples`). */
  check: string
  /** The document checked, as given. */
  file: string
  /** One-line count of what was checked (`143 validated, 0 invalid`). */
  summary: string
  /** Problems that fail the check. */
  failures: Finding[]
  /** Problems worth reading that do not fail the check. */
  notes: Finding[]
}

/** Whether a check passed. */
export function passed(result: CheckResult): boolean {
  return result.failures.length === 0
}

/** Renders a finding on one line. */
export function formatFinding(finding: Finding): string {
  const rule = finding.rule ? `[${finding.rule}] ` : ''
  const line = finding.line ? ` (line ${finding.line})` : ''
  return `${rule}${finding.path}${line}: ${finding.message}`
}

/** Renders a result as a heading line and one indented line per failure and note. */
export function formatCheckResult(result: CheckResult): string {
  const mark = passed(result) ? 'ok  ' : 'FAIL'
  const lines = [`  ${mark} ${result.check}: ${result.summary}`]
  for (const failure of result.failures) lines.push(`         x ${formatFinding(failure)}`)
  for (const note of result.notes) lines.push(`         - ${formatFinding(note)}`)
  return lines.join('\n')
}

/** "1 error" / "2 errors". */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

import type { CheckOutcome, FailureReport } from '../runner/outcome.ts'

const indent = (text: string, by = '    ') =>
  text
    .split('\n')
    .map((line) => by + line)
    .join('\n')

/** A failure as readable text: what the contract expected, what came back, the exchange, and a curl. */
export function formatFailure(failure: FailureReport): string {
  const parts = [`Expected: ${failure.expected}`, `Actual:   ${failure.actual}`]
  if (failure.request) parts.push('Request:', indent(failure.request))
  if (failure.response) parts.push('Response:', indent(failure.response))
  if (failure.curl) parts.push('Reproduce:', indent(failure.curl))
  if (failure.steps) parts.push('Steps:', indent(failure.steps))
  if (failure.script)
    parts.push(
      'Reproduce with this script (sh; keys and IDs are read into variables):',
      indent(failure.script),
    )
  return parts.join('\n')
}

/** The title of an outcome's check with its area and group: `Authentication > GET /user > returns 401 ...`. */
export function checkPath(outcome: Pick<CheckOutcome, 'check'>, areaTitle: string): string {
  return `${areaTitle} > ${outcome.check.group} > ${outcome.check.title}`
}

import { CheckSkipped, ContractFailure } from '../checks/failure.ts'
import type { Exchange } from '../http/exchange.ts'

const PRISM_ERRORS = 'https://stoplight.io/prism/errors#'

interface PrismProblem {
  type?: string
  title?: string
  validation?: { location?: string[]; severity?: string; message?: string }[]
}

/**
 * Recognises answers that Prism (`prism proxy` or `prism mock`) generated itself. A `VIOLATIONS` answer
 * (`--errors`) reports that the implementation's response breaks the contract: a failure. Any other Prism
 * answer (security, routing, request validation) means the request never reached the implementation: the
 * check does not apply through this proxy. Also reads the `sl-violations` header Prism adds without `--errors`.
 */
export function prismProblems(exchange: Exchange): string[] {
  const { response } = exchange
  const problem = response.json as PrismProblem | undefined
  if (problem?.type?.startsWith(PRISM_ERRORS)) {
    const kind = problem.type.slice(PRISM_ERRORS.length)
    if (kind === 'VIOLATIONS')
      throw new ContractFailure(
        'a response that conforms to the contract (as Prism checks it)',
        (problem.validation ?? []).map((v) => `${(v.location ?? []).join('.')}: ${v.message}`).join('; '),
        exchange,
      )
    throw new CheckSkipped(
      `not applicable through Prism: it answered ${response.status} ${kind} itself (${problem.title ?? ''}), so the request never reached the implementation`,
      true,
    )
  }
  // Prism's own body parser answers malformed JSON before proxying: `{"error":{"code":"invalid_json",
  // "message":"Invalid JSON"}}`, without a Request-Id (the implementation's answers always carry one).
  const error = (response.json as { error?: Record<string, unknown> } | undefined)?.error
  if (error?.message === 'Invalid JSON' && error.type === undefined && !response.headers['request-id'])
    throw new CheckSkipped(
      'not applicable through Prism: its body parser refused the malformed JSON itself, so the request never reached the implementation',
      true,
    )
  const header = response.headers['sl-violations']
  if (!header) return []
  try {
    const violations = JSON.parse(header) as PrismProblem['validation']
    return (violations ?? [])
      .filter((v) => v.severity === 'Error' && v.location?.[0] === 'response')
      .map((v) => `Prism: ${(v.location ?? []).join('.')}: ${v.message}`)
  } catch {
    return [`Prism: unreadable sl-violations header ${header.slice(0, 100)}`]
  }
}

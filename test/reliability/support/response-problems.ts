import { errorProblems } from './error-schema.ts'

/** A response as the checks see it, from the engine or off the wire. */
export interface SeenResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  /** Parsed JSON, a string (HTML or unparseable text), or undefined when there is none. */
  body: unknown
}

const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/

/**
 * What is wrong with a response to any request, however malformed: a 5xx, a header Node could not
 * send, a missing `Request-Id`, an error body outside the contract's `Error` schema, or a key value
 * anywhere in it.
 */
export function responseProblems(
  path: string,
  response: SeenResponse,
  secrets: readonly string[],
  options: { bodyExpected?: boolean } = {},
): string[] {
  const problems: string[] = []
  const { status, headers, body } = response
  if (!Number.isInteger(status) || status < 100 || status > 599) problems.push(`status ${status} is not HTTP`)
  if (status >= 500) problems.push(`status ${status}: ${JSON.stringify(body)?.slice(0, 300)}`)
  for (const [name, value] of Object.entries(headers)) {
    for (const one of Array.isArray(value) ? value : [value ?? ''])
      if (!HEADER_VALUE.test(one)) problems.push(`header ${name} has characters HTTP cannot carry`)
  }
  const requestId = headers['request-id']
  if (typeof requestId !== 'string' || !/^req_[A-Za-z0-9]+$/.test(requestId))
    problems.push(`Request-Id is ${JSON.stringify(requestId)}`)
  if (status >= 400 && (options.bodyExpected ?? true))
    problems.push(...errorProblems(path, status, headers, body).map((p) => `error body: ${p}`))
  // JSON the engine wrote as bytes itself (a capsule) is searched as the text it is.
  const shown =
    typeof body === 'string'
      ? body
      : body instanceof Uint8Array
        ? new TextDecoder().decode(body)
        : JSON.stringify(body)
  const text = `${JSON.stringify(headers)}\n${shown}`
  for (const secret of secrets)
    if (text.includes(secret)) problems.push('a key value appears in the response')
  return problems
}

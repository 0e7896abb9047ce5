import type { Contract } from '../contract/contract.ts'
import { type ContractOperation, type ContractResponse, matchOperation } from '../contract/operations.ts'
import type { Exchange } from '../http/exchange.ts'
import { type QuotaState, readRateLimitHeaders } from '../http/rate-limit-headers.ts'
import { analyticsProblems } from './analytics-invariants.ts'

const RATE_LIMIT_HEADERS = ['ratelimit', 'ratelimit-policy', 'x-ratelimit-limit', 'x-ratelimit-remaining']

/** The documented response for a status: the exact code, then `4XX`-style ranges, then `default`. */
function documentedResponse(operation: ContractOperation, status: number): ContractResponse | undefined {
  const responses = operation.responses
  return responses.get(String(status)) ?? responses.get(`${String(status)[0]}XX`) ?? responses.get('default')
}

/** The shared response components that answer a path the contract does not know. */
const UNROUTED: Record<number, string> = { 401: 'Unauthorized', 404: 'NotFound', 429: 'TooManyRequests' }

function headerValue(schema: Record<string, unknown>, raw: string): unknown {
  if ((schema.type === 'integer' || schema.type === 'number') && /^-?[0-9]+(\.[0-9]+)?$/.test(raw))
    return Number(raw)
  return raw
}

/**
 * Everything about one response that the contract decides, whatever the check: the status is documented
 * for the operation, the Content-Type, the required headers and their schemas (the rate-limit headers parsed
 * with the IETF syntax), the body against its schema, `error.request_id` equal to `Request-Id`, and no
 * secret the suite knows echoed back. Returns the problems (empty when the response conforms).
 */
export function conformanceProblems(
  contract: Contract,
  exchange: Exchange,
  path: string,
  secrets: readonly string[],
  /** The keys the run was given or made (real random parts): no response may hold 8 characters of one. */
  issuedKeys: readonly string[] = [],
): string[] {
  const { request, response } = exchange
  const problems: string[] = []
  const bare = path.split('?')[0] ?? path
  const match = exchange.operationId
    ? { operation: contract.operation(exchange.operationId), pathOperations: [] }
    : matchOperation(contract.operations, request.method, bare)
  let documented: ContractResponse | undefined
  let where: string
  if (match.operation) {
    documented = documentedResponse(match.operation, response.status)
    where = match.operation.operationId
  } else if (match.pathOperations.length > 0) {
    // A known path with an undocumented method: only the shared answers apply (405 and the earlier checks).
    const first = match.pathOperations[0] as ContractOperation
    documented = [401, 405, 429].includes(response.status)
      ? documentedResponse(first, response.status)
      : undefined
    where = `${request.method} ${first.path} (method not in the contract)`
  } else {
    const component = UNROUTED[response.status]
    documented = component
      ? {
          status: String(response.status),
          schema: contract.responseSchema(component),
          contentTypes: ['application/json'],
          headers: {},
        }
      : undefined
    where = `${request.method} ${bare} (path not in the contract)`
  }
  if (!documented) {
    problems.push(`status ${response.status} is not documented for ${where}`)
    documented = undefined
  }

  const headers = response.headers
  if (!/^req_[A-Za-z0-9]+$/.test(headers['request-id'] ?? ''))
    problems.push(
      `header Request-Id must be req_<base62>, got ${JSON.stringify(headers['request-id'] ?? null)}`,
    )

  if (documented) {
    for (const [name, header] of Object.entries(documented.headers)) {
      const raw = headers[name]
      if (raw === undefined) {
        if (header.required) problems.push(`required header ${name} is missing`)
        continue
      }
      for (const problem of contract.validator.validate(header.schema, headerValue(header.schema, raw)))
        problems.push(`header ${name}: ${JSON.stringify(raw)} ${problem.replace(/^\(root\) /, '')}`)
    }
    if (documented.contentTypes.length > 0) {
      const type = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
      if (!documented.contentTypes.includes(type))
        problems.push(
          `Content-Type must be ${documented.contentTypes.join(' or ')}, got ${JSON.stringify(headers['content-type'] ?? null)}`,
        )
      if (response.json === undefined) problems.push('the body must be JSON')
      else
        for (const problem of contract.validator.validate(documented.schema, response.json))
          problems.push(`body ${problem}`)
    }
  }

  // What the metrics mean, which no schema can say: on every analytics answer, whatever the check.
  if (match.operation?.operationId === 'getCallAnalytics' && response.status === 200)
    problems.push(...analyticsProblems(response.json))

  if (response.status === 401) {
    const present = RATE_LIMIT_HEADERS.filter((name) => headers[name] !== undefined)
    if (present.length > 0) problems.push(`a 401 carries no rate-limit headers, got ${present.join(', ')}`)
  } else if (headers.ratelimit !== undefined || headers['ratelimit-policy'] !== undefined) {
    const parsed = readRateLimitHeaders(headers)
    if (!parsed.ok) problems.push(`rate-limit headers: ${parsed.error}`)
    else if (response.status === 429) problems.push(...retryAfterProblems(exchange, parsed.value.states))
  }

  const error = (response.json as { error?: Record<string, unknown> } | undefined)?.error
  // The spec: "human-readable text". An empty message explains nothing, whatever the schema lets through.
  if (response.status >= 400 && error && typeof error === 'object' && typeof error.message === 'string')
    if (error.message.trim() === '')
      problems.push('error.message must be human-readable text, got an empty one')
  // The contract, ValidationError: "`param` repeats the first entry's `param`" (of the answer's own `errors`).
  if (response.status === 422 && error && typeof error === 'object' && error.param !== undefined) {
    const first = Array.isArray(error.errors)
      ? (error.errors[0] as { param?: unknown } | undefined)
      : undefined
    if (first && first.param !== error.param)
      problems.push(
        `error.param ${JSON.stringify(error.param)} must repeat the first entry's param, ${JSON.stringify(first.param)}`,
      )
  }
  if (response.status >= 400 && response.status !== 401 && error && typeof error === 'object') {
    if (error.request_id !== undefined && error.request_id !== headers['request-id'])
      problems.push(
        `error.request_id ${JSON.stringify(error.request_id)} differs from Request-Id ${JSON.stringify(headers['request-id'])}`,
      )
  }

  const everything = `${response.text}\n${Object.values(headers).join('\n')}`
  // Messages are in error bodies (small): those are searched for parts of keys too.
  const folded = response.status >= 400 ? everything.toLowerCase() : ''
  for (const secret of secrets)
    if (secret.length >= 8 && everything.includes(secret))
      problems.push('the response echoes a secret the suite sent (an API key or a credential)')
  for (const key of issuedKeys)
    if (folded && !everything.includes(key) && echoesKeyPart(folded, key))
      problems.push(
        'the response echoes part of an API key the suite sent: at most its prefix and last 4 characters may be shown',
      )
  return [...new Set(problems)]
}

/**
 * A 429 tells one wait three ways, in the same answer: `Retry-After`, `error.retry_after` and the largest `t` of
 * the windows used up (`r=0`) in `RateLimit` must be the same number (docs/decisions/006-rate-limits.md: the
 * largest `t` of the exhausted windows, so that a retry after it is admitted).
 */
function retryAfterProblems(exchange: Exchange, states: readonly QuotaState[]): string[] {
  const header = exchange.response.headers['retry-after']
  const error = (exchange.response.json as { error?: Record<string, unknown> } | undefined)?.error
  const exhausted = states.filter((state) => state.remaining === 0)
  if (header === undefined || exhausted.length === 0) return []
  const problems: string[] = []
  const longest = Math.max(...exhausted.map((state) => state.reset))
  if (header !== String(longest))
    problems.push(
      `Retry-After ${JSON.stringify(header)} must be the largest t of the used-up windows in RateLimit (${exhausted.map((s) => `"${s.name}";t=${s.reset}`).join(', ')})`,
    )
  if (error?.retry_after !== undefined && String(error.retry_after) !== header)
    problems.push(
      `error.retry_after ${JSON.stringify(error.retry_after)} must equal Retry-After ${JSON.stringify(header)}`,
    )
  return problems
}

/** Consecutive characters of a key's random part that no response may hold (chance alone: about 1 in 10^12). */
const KEY_WINDOW = 8

/**
 * Whether `folded` (lower-cased) holds 8 consecutive characters of an API key's random part, in any case:
 * docs/decisions/002-authentication.md, a message shows at most a key's prefix and its last 4 characters.
 */
function echoesKeyPart(folded: string, secret: string): boolean {
  const random = /^[sp]k-svc-([A-Za-z0-9]{16,})$/.exec(secret)?.[1]?.toLowerCase()
  if (!random) return false
  for (let start = 0; start + KEY_WINDOW <= random.length; start++)
    if (folded.includes(random.slice(start, start + KEY_WINDOW))) return true
  return false
}

/** A request as the suite sent it. */
export interface SentRequest {
  method: string
  url: string
  headers: Record<string, string>
  /** The body text, when one was sent. */
  body?: string
}

/** A response as the suite received it; header names are lower case. */
export interface ReceivedResponse {
  status: number
  headers: Record<string, string>
  text: string
  /** The parsed JSON body, or undefined when the body is empty or not JSON. */
  json: unknown
  durationMs: number
}

/** One request and its response, with the operation it was meant for. */
export interface Exchange {
  request: SentRequest
  response: ReceivedResponse
  operationId?: string
}

/** How a secret may be shown: the prefix and last 4 characters (`sk-svc-...WXYZ`). */
export function redactKey(value: string): string {
  const prefix = /^[a-z]{2}-svc-/.exec(value)?.[0] ?? ''
  return value.length <= 12 ? `${prefix}...` : `${prefix}...${value.slice(-4)}`
}

const KEY_PATTERN = /\b([a-z]{2}-svc-)[A-Za-z0-9]{8,}/g

/**
 * Removes every secret from a text: known secrets (keys, credentials the suite sent) are replaced by their
 * redacted form, and anything shaped like an API key is cut to its prefix and last 4 characters.
 */
export function redactText(text: string, secrets: Iterable<string>): string {
  let out = text
  for (const secret of secrets) if (secret.length >= 8) out = out.split(secret).join(redactKey(secret))
  return out.replace(KEY_PATTERN, (match) => redactKey(match))
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`

/**
 * A curl command that reproduces the request. The key never appears: the Authorization header names an
 * environment variable (`$VOICE_API_KEY` for the main key) or shows the redacted key.
 */
export function toCurl(
  request: SentRequest,
  keyNames: ReadonlyMap<string, string>,
  secrets: Iterable<string>,
) {
  const parts = ['curl', '-sS', '-i']
  if (request.method !== 'GET') parts.push('-X', request.method)
  parts.push(shellQuote(request.url))
  for (const [name, value] of Object.entries(request.headers)) {
    if (name.toLowerCase() === 'authorization') {
      const match = /^(\S+)(\s+)(.*)$/.exec(value)
      const token = match?.[3] ?? ''
      const variable = keyNames.get(token)
      if (variable) {
        parts.push(`-H "Authorization: ${match?.[1]}${match?.[2]}$${variable}"`)
        continue
      }
      parts.push('-H', shellQuote(`Authorization: ${redactText(value, secrets)}`))
      continue
    }
    parts.push('-H', shellQuote(`${name}: ${redactText(value, secrets)}`))
  }
  if (request.body !== undefined) {
    const body =
      request.body.length > 2000
        ? `${request.body.slice(0, 200)}... (${request.body.length} bytes)`
        : request.body
    parts.push('--data-raw', shellQuote(redactText(body, secrets)))
  }
  return redactText(parts.join(' '), secrets)
}

/** The exchange as text for a report: request line, headers, body; then the response likewise. */
export function describeExchange(exchange: Exchange, secrets: Iterable<string>, maxBody = 1500): string {
  const { request, response } = exchange
  const clip = (text: string) =>
    text.length > maxBody ? `${text.slice(0, maxBody)}... (${text.length} bytes)` : text
  const lines = [`> ${request.method} ${request.url}`]
  for (const [name, value] of Object.entries(request.headers)) lines.push(`> ${name}: ${value}`)
  if (request.body !== undefined) lines.push('>', `> ${clip(request.body)}`)
  lines.push(`< ${response.status} (${response.durationMs.toFixed(0)} ms)`)
  for (const [name, value] of Object.entries(response.headers)) lines.push(`< ${name}: ${value}`)
  if (response.text !== '') lines.push('<', `< ${clip(response.text)}`)
  return redactText(lines.join('\n'), secrets)
}

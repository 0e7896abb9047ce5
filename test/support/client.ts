import type { Transport } from './transports.ts'

export interface CallOptions {
  key?: string
  body?: unknown
  /** Raw body text (sent as is). */
  raw?: string
  headers?: Record<string, string>
}

export interface CallResult {
  status: number
  headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: tests read bodies of many shapes
  body: any
}

/** Sends a request to the transport's origin (`path` starts with `/v1` or `/_mock`). */
export async function call(
  transport: Transport,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`
  let body: string | undefined
  if (options.raw !== undefined) body = options.raw
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers['content-type'] ??= 'application/json'
  }
  const viaProxy = transport.apiBase !== undefined && path.startsWith('/v1')
  const url = viaProxy ? `${transport.apiBase}${path.slice(3)}` : `${transport.origin}${path}`
  const response = await fetch(url, { method, headers, body })
  if (viaProxy) recordViolations(transport, method, path, response.headers.get('sl-violations'))
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = text === '' ? undefined : JSON.parse(text)
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed }
}

/** A fresh account of a plan with a key of the given kind and scopes, through the control plane. */
export async function provision(
  transport: Transport,
  input: { plan?: 'free' | 'pro' | 'enterprise'; limits?: { hourly: number; burst: number } } = {},
  key: {
    type?: 'secret' | 'publishable'
    permissions?: string[]
    restrictions?: Record<string, unknown>
  } = {},
) {
  const account = await call(transport, 'POST', '/_mock/accounts', {
    body: { plan: input.plan ?? 'pro', ...(input.limits ? { limits: input.limits } : {}) },
  })
  if (account.status !== 201)
    throw new Error(`createAccount: ${account.status} ${JSON.stringify(account.body)}`)
  const created = await call(transport, 'POST', `/_mock/accounts/${account.body.id}/keys`, {
    body: {
      type: key.type ?? 'secret',
      name: 'test key',
      ...(key.permissions ? { permissions: key.permissions } : {}),
      ...(key.restrictions ? { restrictions: key.restrictions } : {}),
    },
  })
  if (created.status !== 201) throw new Error(`createKey: ${created.status} ${JSON.stringify(created.body)}`)
  return {
    accountId: account.body.id as string,
    keyId: created.body.id as string,
    key: created.body.value as string,
  }
}

/** Keeps the response violations a validating proxy reported (request violations are the test's intent). */
function recordViolations(transport: Transport, method: string, path: string, header: string | null): void {
  if (!header) return
  const found = JSON.parse(header) as { location: string[]; message: string }[]
  for (const violation of found)
    if (violation.location[0] === 'response')
      transport.violations.push(`${method} ${path}: ${violation.location.join('.')} ${violation.message}`)
}

import { Agent, request } from 'node:http'

/** A response with its JSON body parsed (the raw text when it is not JSON). */
export interface JsonResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON came back
  body: any
}

/** No connection limit and no keep-alive: concurrent requests really are concurrent connections. */
const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY })

/** Sends one request with node:http (a JSON body when `body` is given) and reads the whole answer. */
export function httpJson(
  origin: string,
  method: string,
  path: string,
  options: { key?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<JsonResponse> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.key) headers.authorization = `Bearer ${options.key}`
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body)
  if (payload !== undefined) headers['content-type'] ??= 'application/json'
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        let body: unknown = text
        try {
          body = text === '' ? undefined : JSON.parse(text)
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(payload)
  })
}

/** A fresh account and a key on it, through the control plane. */
export async function provisionAccount(
  origin: string,
  account: { plan: 'free' | 'pro' | 'enterprise'; limits?: { hourly: number; burst: number } },
  key: { type?: 'secret' | 'publishable'; permissions?: string[] } = {},
): Promise<{ accountId: string; keyId: string; key: string }> {
  const created = await httpJson(origin, 'POST', '/_mock/accounts', { body: account })
  if (created.status !== 201)
    throw new Error(`createAccount: ${created.status} ${JSON.stringify(created.body)}`)
  const made = await httpJson(origin, 'POST', `/_mock/accounts/${created.body.id}/keys`, {
    body: {
      type: key.type ?? 'secret',
      name: 'reliability',
      ...(key.permissions ? { permissions: key.permissions } : {}),
    },
  })
  if (made.status !== 201) throw new Error(`createKey: ${made.status} ${JSON.stringify(made.body)}`)
  return { accountId: created.body.id, keyId: made.body.id, key: made.body.value }
}

/** Another key on an existing account. */
export async function addKey(origin: string, accountId: string): Promise<{ keyId: string; key: string }> {
  const made = await httpJson(origin, 'POST', `/_mock/accounts/${accountId}/keys`, {
    body: { type: 'secret', name: 'reliability' },
  })
  if (made.status !== 201) throw new Error(`createKey: ${made.status} ${JSON.stringify(made.body)}`)
  return { keyId: made.body.id, key: made.body.value }
}

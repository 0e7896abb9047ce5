import { addKey, httpJson, type JsonResponse, provisionAccount } from './http-json.ts'
import { agentBody } from './targets.ts'

const UNLIMITED = { hourly: 100_000_000, burst: 100_000_000 }

/** `n` concurrent `GET /v1/user` on a fresh free-plan account (empty burst window). */
export async function burstOnFreeAccount(origin: string, n = 200) {
  const { key } = await provisionAccount(origin, { plan: 'free' })
  const responses = await Promise.all(
    Array.from({ length: n }, () => httpJson(origin, 'GET', '/v1/user', { key })),
  )
  return {
    admitted: responses.filter((r) => r.status === 200).length,
    refused: responses.filter((r) => r.status === 429),
    others: responses.filter((r) => r.status !== 200 && r.status !== 429),
  }
}

/** `n` concurrent identical `POST /v1/agents` with one Idempotency-Key on a fresh account. */
export async function idempotentCreates(origin: string, n = 100) {
  const { key } = await provisionAccount(origin, { plan: 'enterprise', limits: UNLIMITED })
  const responses = await Promise.all(
    Array.from({ length: n }, () =>
      httpJson(origin, 'POST', '/v1/agents', {
        key,
        headers: { 'idempotency-key': 'one-agent' },
        body: agentBody('only once'),
      }),
    ),
  )
  const list = await httpJson(origin, 'GET', '/v1/agents?limit=100', { key })
  return { responses, stored: (list.body.data as unknown[]).length }
}

/**
 * 16 clients call `GET /v1/user` in a loop with a key; the key is revoked meanwhile, and every client
 * goes on until it has sent three requests after the revocation returned.
 */
export async function revocationUnderLoad(origin: string, clients = 16, delayMs = 80) {
  const { accountId } = await provisionAccount(origin, { plan: 'enterprise', limits: UNLIMITED })
  const { keyId, key } = await addKey(origin, accountId)
  let revokedAt = Number.POSITIVE_INFINITY
  const seen: { sentAt: number; status: number }[] = []
  const client = async () => {
    let afterRevocation = 0
    while (afterRevocation < 3) {
      const sentAt = performance.now()
      if (sentAt > revokedAt) afterRevocation++
      const { status } = await httpJson(origin, 'GET', '/v1/user', { key })
      seen.push({ sentAt, status })
    }
  }
  const running = Array.from({ length: clients }, client)
  await new Promise((resolve) => setTimeout(resolve, delayMs))
  const revoked: JsonResponse = await httpJson(origin, 'POST', `/_mock/keys/${keyId}/revoke`)
  revokedAt = performance.now()
  await Promise.all(running)
  return {
    revokeStatus: revoked.status,
    admittedBefore: seen.filter((s) => s.sentAt < revokedAt && s.status === 200).length,
    after: seen.filter((s) => s.sentAt > revokedAt),
  }
}

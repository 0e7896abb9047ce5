import type { OpenApiDocument } from './load-contract.ts'
import { requestBodyOf } from './operations.ts'

/** One of the contract's top-level `webhooks`: an event type the platform POSTs to receivers. */
export interface ContractWebhook {
  /** The event type, the webhook's name (`call.started`). */
  type: string
  operationId: string
  /** The JSON schema of the event body. */
  schema: Record<string, unknown>
  /** The documented examples of the body (their values), in document order. */
  examples: unknown[]
}

/** The contract's `webhooks` (OpenAPI 3.1), in document order; those without a JSON body are left out. */
export function listWebhooks(document: OpenApiDocument): ContractWebhook[] {
  const webhooks = (document.webhooks ?? {}) as Record<string, { post?: Record<string, unknown> }>
  const out: ContractWebhook[] = []
  for (const [type, item] of Object.entries(webhooks)) {
    const post = item.post
    const body = post ? requestBodyOf(document, post.requestBody) : undefined
    if (!post || !body) continue
    out.push({ type, operationId: String(post.operationId), schema: body.schema, examples: body.examples })
  }
  return out
}

import type { AccountStore } from '../accounts.ts'
import { errors } from '../api-error.ts'
import type { Clock } from '../clock.ts'
import type { ControlHandler } from '../control/control-handler.ts'
import { json } from '../json-answer.ts'
import { presentDelivery } from './delivery-log.ts'
import type { SigningSecrets } from './signing-secrets.ts'
import type { WebhookDeliveries } from './webhook-deliveries.ts'

/** What the webhook operations of the control plane act on. */
export interface WebhookControlOptions {
  accounts: AccountStore
  clock: Clock
  secrets: SigningSecrets
  deliveries: WebhookDeliveries
}

/**
 * The control plane's webhook operations (mock-control.yaml, tag Webhooks): the signing secret, shown once
 * when created or rotated, and the delivery log with redelivery.
 */
export function webhookControlHandlers(options: WebhookControlOptions): Record<string, ControlHandler> {
  const { accounts, clock, secrets, deliveries } = options

  function accountId(params: Record<string, string>): string {
    const id = params.account_id ?? ''
    if (!accounts.get(id)) throw errors.resourceNotFound('account', id, 'account_id')
    return id
  }

  return {
    getWebhookSecret({ params }) {
      const id = accountId(params)
      const secret = secrets.get(id)
      return json(200, {
        object: 'webhook_secret',
        account_id: id,
        exists: secret !== undefined,
        created_at: secret?.created_at ?? null,
      })
    },
    createWebhookSecret({ params }) {
      const id = accountId(params)
      const { secret, rotated } = secrets.create(id, clock.iso())
      return json(201, {
        object: 'webhook_secret',
        account_id: id,
        created_at: secret.created_at,
        rotated,
        value: secret.value,
      })
    },
    deleteWebhookSecret({ params }) {
      const id = accountId(params)
      if (!secrets.remove(id))
        throw errors.resourceNotFound('webhook signing secret of account', id, 'account_id')
      return json(200, { object: 'webhook_secret', account_id: id, deleted: true })
    },
    listWebhookDeliveries({ params, query }) {
      const id = accountId(params)
      const limit = typeof query.limit === 'number' ? query.limit : 100
      const callId = typeof query.call_id === 'string' ? query.call_id : undefined
      const all = deliveries.log.list(id).filter((d) => callId === undefined || d.call_id === callId)
      return json(200, {
        object: 'list',
        data: all.slice(0, limit).map(presentDelivery),
        has_more: all.length > limit,
      })
    },
    redeliverWebhook({ params }) {
      const id = params.delivery_id ?? ''
      const again = deliveries.redeliver(id)
      if (!again) throw errors.resourceNotFound('webhook delivery', id, 'delivery_id')
      return json(200, presentDelivery(again))
    },
  }
}

import { startTicker, type Tickable } from '../../ticker/start-ticker.ts'
import {
  createWebhookDeliverer,
  type DeliveringPlatform,
  type WebhookDelivererOptions,
} from './webhook-deliverer.ts'

export interface RunWebhooksOptions extends WebhookDelivererOptions {
  /** Also tick this often when nothing is known to be due (a store shared with other processes). */
  pollMs?: number
}

/**
 * What a Node server runs beside the engine (the CLI's mock, or a test's): the ticker that moves calls in real
 * time, and the deliverer that makes the webhook attempts falling due. The platform must record deliveries
 * (`webhookDeliveries: true`).
 */
export function runWebhooks(platform: Tickable & DeliveringPlatform, options: RunWebhooksOptions = {}) {
  const { pollMs, ...delivererOptions } = options
  const deliverer = createWebhookDeliverer(platform, delivererOptions)
  const ticker = startTicker(platform, { afterTick: () => deliverer.deliverDue(), pollMs })
  return {
    deliverer,
    /** Stops ticking and claiming, and waits for the attempts under way. */
    async stop(): Promise<void> {
      ticker.stop()
      await deliverer.stop()
    },
  }
}

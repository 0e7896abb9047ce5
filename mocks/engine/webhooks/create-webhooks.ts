import type { AccountStore } from '../accounts.ts'
import type { Clock } from '../clock.ts'
import type { Agent, CallLog } from '../resources/types.ts'
import type { EngineState } from '../state/state.ts'
import { type CallEventType, callEvent } from './call-event.ts'
import { createEventBus } from './event-bus.ts'
import { createSigningSecrets } from './signing-secrets.ts'
import { webhookControlHandlers } from './webhook-control-handlers.ts'
import { createWebhookDeliveries } from './webhook-deliveries.ts'

export interface WebhooksOptions {
  state: EngineState
  clock: Clock
  accounts: AccountStore
  /** Whether events are delivered to agents' `webhook_url`s (a deliverer runs: the Node server). */
  deliver: boolean
}

/**
 * Events and their webhooks: the in-process listeners, the signing secrets, the delivery log, and the
 * control-plane operations on them.
 */
export function createWebhooks(options: WebhooksOptions) {
  const { state, clock, accounts } = options
  const bus = createEventBus()
  const secrets = createSigningSecrets(state)
  const deliveries = createWebhookDeliveries(state, clock, secrets)
  return {
    bus,
    deliveries,
    /** Whether deliveries are made (and recorded). */
    delivering: options.deliver,
    handlers: webhookControlHandlers({ accounts, clock, secrets, deliveries }),
    /** A call produced an event: listeners hear of it, and the agent's URL gets it when subscribed. */
    emit(
      type: CallEventType,
      log: CallLog,
      context: { account_id: string; agent: Agent | undefined; agent_id: string },
      at: number,
    ): void {
      const event = callEvent(type, log, at)
      bus.push(event, { account_id: context.account_id, agent_id: context.agent_id })
      if (options.deliver) deliveries.enqueue(event, context.agent, context.account_id, log.id, at)
    },
    /** Drops an account's secret and deliveries (the account is deleted). */
    removeAccount(accountId: string): void {
      secrets.remove(accountId)
      deliveries.log.removeAccount(accountId)
    },
  }
}

export type Webhooks = ReturnType<typeof createWebhooks>

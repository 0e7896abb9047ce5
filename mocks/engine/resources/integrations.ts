import { errors } from '../api-error.ts'
import { type Handlers, type OperationContext, pathParam } from './operation-handler.ts'
import type { IntegrationRecord } from './types.ts'

export const integrationsOf = (ctx: OperationContext) => ctx.data.integrations

function findIntegration(ctx: OperationContext): IntegrationRecord {
  const integration = integrationsOf(ctx).get(pathParam(ctx, 'integration_id'))
  if (!integration)
    throw errors.resourceNotFound('integration', pathParam(ctx, 'integration_id'), 'integration_id')
  return integration
}

/**
 * `...` and the last 4 characters (code points, as the contract's pattern counts them: never half of a
 * surrogate pair) of the credential whose key sorts first (by code point).
 */
export function credentialHint(credentials: Record<string, string>): string | null {
  const first = Object.keys(credentials).sort()[0]
  const value = first === undefined ? undefined : credentials[first]
  return value ? `...${Array.from(value).slice(-4).join('')}` : null
}

/** Behaviour of the integration operations; credentials are write-only and never kept. */
export function integrationHandlers(): Handlers {
  return {
    listIntegrations: {
      run: (ctx) => ({
        status: 200,
        body: {
          object: 'list',
          data: [...integrationsOf(ctx).values()].map((i) => ({ ...i })),
          has_more: false,
        },
      }),
    },
    getIntegration: {
      load: findIntegration,
      run: (_ctx, integration) => ({ status: 200, body: { ...integration } }),
    },
    updateIntegration: {
      load: findIntegration,
      run(ctx, integration: IntegrationRecord) {
        const { enabled, config, credentials } = ctx.body as {
          enabled?: boolean
          config?: Record<string, string | number | boolean>
          credentials?: Record<string, string> | null
        }
        const now = ctx.clock.iso()
        const updated: IntegrationRecord = { ...integration, updated_at: now }
        if (enabled !== undefined) updated.enabled = enabled
        if (config !== undefined) updated.config = config
        if (credentials === null) {
          updated.status = 'not_connected'
          updated.connected_at = null
          updated.credential_hint = null
        } else if (credentials) {
          updated.status = 'connected'
          updated.connected_at = now
          updated.credential_hint = credentialHint(credentials)
        }
        integrationsOf(ctx).put(updated.id, updated)
        return { status: 200, body: { ...updated } }
      },
    },
  }
}

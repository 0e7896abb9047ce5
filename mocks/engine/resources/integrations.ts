import { errors } from '../api-error.ts'
import { type OpenApiDocument, resolveRef } from '../contract/document.ts'
import type { Handlers, OperationContext } from './operation-handler.ts'
import type { IntegrationRecord } from './types.ts'

export const integrationsOf = (ctx: OperationContext) => ctx.data.integrations

function findIntegration(ctx: OperationContext): IntegrationRecord {
  // Stryker disable next-line StringLiteral,LogicalOperator: the router always gives the path's id; in the 404 the id shows in the message only (free text) and an empty param is left out (error.param is optional, docs/decisions/011-allowed-forms.md)
  const integration = integrationsOf(ctx).get(ctx.params.integration_id ?? '')
  if (!integration)
    // Stryker disable next-line StringLiteral,LogicalOperator: the router always gives the path's id; in the 404 the id shows in the message only (free text) and an empty param is left out (error.param is optional, docs/decisions/011-allowed-forms.md)
    throw errors.resourceNotFound('integration', ctx.params.integration_id ?? '', 'integration_id')
  return integration
}

/** `...` and the last 4 characters of the credential whose key sorts first (by code point). */
export function credentialHint(credentials: Record<string, string>): string | null {
  const first = Object.keys(credentials).sort()[0]
  const value = first === undefined ? undefined : credentials[first]
  return value ? `...${value.slice(-4)}` : null
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

// Stryker disable all: display names are the mock's data (the contract fixes the slugs; a name is any string)
const DISPLAY_NAMES: Record<string, string> = {
  twilio: 'Twilio',
  salesforce: 'Salesforce',
  hubspot: 'HubSpot',
  google_calendar: 'Google Calendar',
  slack: 'Slack',
  zapier: 'Zapier',
  webhook: 'Webhook',
}
// Stryker restore all

/** The integrations every account has, in the contract's order (`IntegrationSlug`'s enum). */
export function integrationCatalog(
  document: OpenApiDocument,
): { id: IntegrationRecord['id']; name: string }[] {
  const slugs = resolveRef<{ enum?: IntegrationRecord['id'][] }>(document, {
    $ref: '#/components/schemas/IntegrationSlug',
  })
  // Stryker disable all: the contract's IntegrationSlug always has its enum, and every slug its display name (above)
  return (slugs.enum ?? []).map((id) => ({
    id,
    name: DISPLAY_NAMES[id] ?? id.replace(/_/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase()),
  }))
  // Stryker restore all
}

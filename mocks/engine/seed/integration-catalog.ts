import { type OpenApiDocument, resolveRef } from '../contract/document.ts'
import type { IntegrationRecord } from '../resources/types.ts'

/** Display names of the integrations: the mock's data (the contract fixes the slugs; a name is any string). */
const DISPLAY_NAMES: Record<string, string> = {
  twilio: 'Twilio',
  salesforce: 'Salesforce',
  hubspot: 'HubSpot',
  google_calendar: 'Google Calendar',
  slack: 'Slack',
  zapier: 'Zapier',
  webhook: 'Webhook',
}

/** The integrations every account has, in the contract's order (`IntegrationSlug`'s enum). */
export function integrationCatalog(
  document: OpenApiDocument,
): { id: IntegrationRecord['id']; name: string }[] {
  const slugs = resolveRef<{ enum?: IntegrationRecord['id'][] }>(document, {
    $ref: '#/components/schemas/IntegrationSlug',
  })
  return (slugs.enum ?? []).map((id) => ({
    id,
    name: DISPLAY_NAMES[id] ?? id.replace(/_/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase()),
  }))
}

import { toTimestamp } from '../clock.ts'
import type { RecordMap } from '../record-map.ts'
import type { IntegrationRecord } from '../resources/types.ts'
import { type ContractFaker, enumValue } from './contract-faker.ts'
import type { Prng } from './prng.ts'
import { DAY, HOUR, withinAnHour } from './time.ts'

/** What `seedIntegrations` needs. */
export interface IntegrationSeedOptions {
  /** The account's Twilio number (an agent's line). */
  phoneNumber: string
  /** The team's e-mail domain and company slug, for config values. */
  domain: string
  /** When the account was created (ms): the provisioned integrations date from then. */
  since: number
  now: number
  prng: Prng
  faker: ContractFaker
}

const HEX = '0123456789abcdef'
const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/**
 * A lived-in integration catalog: Twilio, Slack and Google Calendar connected, Salesforce connected once but now
 * failing (`error`: the provider rejected the stored credentials), the others never set up. Only slugs the
 * provisioned catalog (the contract's `IntegrationSlug`) holds are touched.
 */
export function seedIntegrations(
  integrations: RecordMap<IntegrationRecord>,
  options: IntegrationSeedOptions,
): void {
  const { phoneNumber, domain, since, now, prng, faker } = options
  const statuses = faker.enumOf('#/components/schemas/Integration/properties/status')
  const connected = enumValue(statuses, 'connected')
  const failing = enumValue(statuses, 'error')
  const company = domain.split('.')[0] ?? 'acme'
  const provisioned = toTimestamp(since)
  for (const integration of [...integrations.values()])
    integrations.put(integration.id, { ...integration, updated_at: provisioned })

  const connect = (
    slug: string,
    daysAfterSignUp: number,
    config: IntegrationRecord['config'],
    secret: string,
  ): IntegrationRecord | undefined => {
    const integration = integrations.get(slug)
    if (!integration) return undefined
    const at = toTimestamp(
      Math.min(now, since + daysAfterSignUp * DAY + prng.int(1, 20) * HOUR + withinAnHour(prng)),
    )
    const connectedOne: IntegrationRecord = {
      ...integration,
      enabled: true,
      status: connected,
      config,
      credential_hint: `...${secret.slice(-4)}`,
      connected_at: at,
      updated_at: at,
    }
    integrations.put(slug, connectedOne)
    return connectedOne
  }

  connect('twilio', 1, { phone_number: phoneNumber, region: 'us1' }, prng.chars(HEX, 32))
  connect(
    'slack',
    3,
    { channel: '#voice-agent-alerts', notify_on: 'call.ended' },
    `xoxb-${prng.chars(ALNUM, 24)}`,
  )
  connect('google_calendar', 6, { calendar_id: `bookings@${domain}` }, prng.chars(ALNUM, 40))
  const salesforce = connect(
    'salesforce',
    9,
    { instance_url: `https://${company}.my.salesforce.com`, sync_call_logs: true },
    prng.chars(ALNUM, 40),
  )
  if (salesforce) {
    integrations.put(salesforce.id, {
      ...salesforce,
      status: failing,
      updated_at: toTimestamp(now - prng.int(1, 4) * DAY - prng.int(0, 23) * HOUR - withinAnHour(prng)),
    })
  }
}

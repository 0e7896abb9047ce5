import type { Account, AccountStore, Plan } from '../accounts.ts'
import { type Clock, toTimestamp } from '../clock.ts'
import type { OpenApiDocument } from '../contract/document.ts'
import type { KeyStore } from '../keys/key-store.ts'
import type { AccountData } from '../resources/account-data.ts'
import { seedAgents } from './agents.ts'
import { seedCallLogs } from './call-logs.ts'
import { DEMO_OWNERS } from './catalog.ts'
import { createContractFaker } from './contract-faker.ts'
import { seedIntegrations } from './integrations.ts'
import { createPrng } from './prng.ts'
import { seedTeamMembers } from './team-members.ts'
import { DAY, HOUR, withinAnHour } from './time.ts'

/** The demo account and the values of its two keys, known only to whoever seeded it. */
export interface DemoAccount {
  account: Account
  secretKey?: string
  publishableKey?: string
  secretKeyId: string
  publishableKeyId: string
}

/** How much demo data to seed. */
export interface SeedSize {
  /** Agents (default 8, one per persona). */
  agents?: number
  /** Call logs over the last 30 days (default 400; the benchmark seeds 100,000). */
  callLogs?: number
  /** Team members besides the owner (default 5). */
  teamMembers?: number
}

/** Options of `seedDemoAccount`; `createEngine` passes its own stores and provisioning. */
export interface SeedOptions {
  /** The same seed gives the same data (the key values excepted, which come from the CSPRNG). */
  seed: number
  plan: Plan
  size?: SeedSize
  clock: Clock
  /** The v1 contract, parsed: every seeded object is generated from its schemas. */
  document: OpenApiDocument
  accounts: AccountStore
  keys: KeyStore
  /** The fresh, provisioned data of a new account (integration catalog and owner already in it). */
  dataFor: (account: Account) => AccountData
}

/** The default size of the demo data. */
export const DEFAULT_SEED_SIZE: Required<SeedSize> = { agents: 8, callLogs: 400, teamMembers: 5 }

/**
 * Creates the demo account with a secret and a publishable key, and fills it with realistic, contract-valid data:
 * agents, call logs with transcripts and analyses (over the last 30 days before the clock's now), team members
 * and a few connected integrations. Everything but the key values is deterministic for a given seed.
 */
export function seedDemoAccount(options: SeedOptions): DemoAccount {
  const { seed, plan, clock, document, accounts, keys, dataFor } = options
  const size = { ...DEFAULT_SEED_SIZE, ...options.size }
  const now = Math.floor(clock.now() / 1000) * 1000
  const faker = createContractFaker(document)
  const prng = createPrng(seed, 'account')
  const owner = prng.pick(DEMO_OWNERS)
  const email = `${owner.name.replace(' ', '.')}@${owner.domain}`.toLowerCase()
  const id = prng.id('usr')
  // The account predates its agents by a few months.
  const since = now - prng.int(75, 95) * DAY - prng.int(0, 23) * HOUR - withinAnHour(prng)
  const account = accounts.create({ id, plan, email, name: owner.name, created_at: toTimestamp(since) })
  const data = dataFor(account)

  const plans = seedAgents({ count: size.agents, now, prng: createPrng(seed, 'agents'), faker })
  data.agents.load(plans.map((p) => p.agent))
  data.callLogs.load(
    seedCallLogs({ count: size.callLogs, plans, now, prng: createPrng(seed, 'call-logs'), faker }),
  )
  const context = { domain: owner.domain, since, now, faker }
  seedTeamMembers(data.teamMembers, { ...context, count: size.teamMembers, prng: createPrng(seed, 'team') })
  const twilioLine = plans.find((p) => p.persona.region === 'us')?.line ?? plans[0]?.line ?? '+14155550100'
  seedIntegrations(data.integrations, {
    ...context,
    phoneNumber: twilioLine,
    prng: createPrng(seed, 'integrations'),
  })

  const secret = keys.create(account.id, { type: 'secret', name: 'Demo secret key' })
  const publishable = keys.create(account.id, { type: 'publishable', name: 'Demo publishable key' })
  if (!secret.ok) throw new Error(`Seeding the demo secret key failed: ${secret.message}`)
  if (!publishable.ok) throw new Error(`Seeding the demo publishable key failed: ${publishable.message}`)
  return {
    account,
    secretKey: secret.value,
    publishableKey: publishable.value,
    secretKeyId: secret.key.id,
    publishableKeyId: publishable.key.id,
  }
}

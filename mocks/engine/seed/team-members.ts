import { toTimestamp } from '../clock.ts'
import type { Collection } from '../collection.ts'
import type { TeamMember } from '../resources/types.ts'
import { FIRST_NAMES, LAST_NAMES } from './catalog.ts'
import { type ContractFaker, enumValue } from './contract-faker.ts'
import { type Prng, weightedPicker } from './prng.ts'
import { DAY, HOUR, withinAnHour } from './time.ts'

/** What `seedTeamMembers` needs. */
export interface TeamSeedOptions {
  /** Members besides the owner. */
  count: number
  /** The e-mail domain of the team. */
  domain: string
  /** When the account was created (ms); nobody joined before. */
  since: number
  now: number
  prng: Prng
  faker: ContractFaker
}

/**
 * Seeds the team: the owner that provisioning created (given a seeded id, so the whole seed is deterministic)
 * and `count` colleagues from the contract's `TeamMember` schema, mostly active, the newest still invited.
 */
export function seedTeamMembers(members: Collection<TeamMember>, options: TeamSeedOptions): void {
  const { count, domain, since, now, prng, faker } = options
  const schema = '#/components/schemas/TeamMember/properties'
  const roles = faker.enumOf(`${schema}/role`)
  const statuses = faker.enumOf(`${schema}/status`)
  const owner = members.values().find((member) => member.role === enumValue(roles, 'owner'))
  const pickRole = weightedPicker(
    [enumValue(roles, 'admin'), enumValue(roles, 'editor'), enumValue(roles, 'viewer')],
    [1, 2, 2],
  )
  const active = enumValue(statuses, 'active')
  const invited = enumValue(statuses, 'invited')
  const invitedCount = count === 0 ? 0 : Math.max(1, Math.round(count / 5))
  const taken = new Set(owner ? [owner.email] : [])
  const seeded: TeamMember[] = owner ? [{ ...owner, id: prng.id('mem') }] : []
  for (let i = 0; i < count; i++) {
    const base = faker.fake<Record<string, unknown>>('TeamMember', prng.seed())
    const first = prng.pick(FIRST_NAMES)
    const last = prng.pick(LAST_NAMES)
    let email = `${first}.${last}@${domain}`.toLowerCase()
    for (let n = 2; taken.has(email); n++) email = `${first}.${last}${n}@${domain}`.toLowerCase()
    taken.add(email)
    const isInvited = i >= count - invitedCount
    const invitedAt = isInvited
      ? now - prng.int(1, 6) * DAY - prng.int(0, 23) * HOUR - withinAnHour(prng)
      : since + DAY + prng.next() * Math.max(0, now - since - 20 * DAY)
    seeded.push({
      ...base,
      id: prng.id('mem'),
      object: 'team_member',
      email,
      name: isInvited && i === count - 1 ? null : `${first} ${last}`,
      role: pickRole(prng),
      status: isInvited ? invited : active,
      invited_at: toTimestamp(invitedAt),
      joined_at: isInvited ? null : toTimestamp(invitedAt + prng.int(1, 72) * HOUR),
      created_at: toTimestamp(invitedAt),
    } as TeamMember)
  }
  members.clear()
  members.load(seeded)
}

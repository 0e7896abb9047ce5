import { mapConcurrently } from '../runner/map-concurrently.ts'
import { type MissingCapabilities, probeCapabilities } from './control-capabilities.ts'
import { collectSecrets, type Keyring } from './keyring.ts'
import type { MockAccount, MockControl, MockKeyInput } from './mock-control.ts'

/** Limits of the run's accounts: far out of the way, so only the rate-limit checks meet a 429. */
const ROOMY_LIMITS = { hourly: 10_000_000, burst: 1_000_000 }

/** The origin the provisioned origin-restricted key is bound to. */
export const RESTRICTED_ORIGIN = 'https://contract-suite.example'

/** Control-plane requests provisioning sends at once. */
const AT_ONCE = 16

/**
 * How far ahead of the mock's clock the expired key's `expires_at` is set (it must be in the future when the
 * key is made, however long the round trips take), before the clock is moved past it.
 */
const EXPIRY_AHEAD_SECONDS = 60

/** What provisioning created, and how to undo what can be undone. */
export interface Provisioned {
  keyring: Keyring
  accountId: string
  /** Undo steps for teardown: restore limits, revoke keys, delete the accounts created. */
  undo: (() => Promise<void>)[]
  /** Accounts created (deleted in teardown). */
  accounts: string[]
  /** The optional capabilities the control plane lacks, with the reason (checks that need them do not apply). */
  missing: MissingCapabilities
  /** What teardown tells of the mock once the undo steps ran: what was put back, and what could not be. */
  closingNotes: () => Promise<string[]>
}

/** Seconds as the teardown says them: `157 s`, `200,000 s (about 2.3 days)`. */
export function describeSeconds(seconds: number): string {
  const exact = `${(Math.round(seconds * 1000) / 1000).toLocaleString('en-US')} s`
  if (seconds >= 86_400) return `${exact} (about ${(seconds / 86_400).toFixed(1)} days)`
  if (seconds >= 3_600) return `${exact} (about ${(seconds / 3_600).toFixed(1)} hours)`
  return exact
}

/** One account of the run with a key of every kind (the seeded account's call-log key comes separately). */
interface RunAccount {
  account: MockAccount
  keyring: Keyring
  /** Revokes the account's keys and deletes it. */
  remove: () => Promise<void>
}

/**
 * Creates an enterprise account with roomy limits and every kind of key: secret, publishable, revoked,
 * expired (a minute after the mock's now: the caller moves the clock past it), one key lacking each scope,
 * one with no scope, one bound to an origin.
 */
async function provisionAccount(control: MockControl, scopes: string[], label: string): Promise<RunAccount> {
  const account = await control.createAccount({ plan: 'enterprise', name: label, limits: ROOMY_LIMITS })
  const clock = await control.clock()
  const expiresAt = new Date(Date.parse(clock.now) + EXPIRY_AHEAD_SECONDS * 1000)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
  const wanted: [string, Omit<MockKeyInput, 'name'>][] = [
    ['secret', { type: 'secret' }],
    ['publishable', { type: 'publishable' }],
    ['revoked', { type: 'secret' }],
    ['expired', { type: 'secret', restrictions: { expires_at: expiresAt } }],
    ...scopes.map((missing): [string, Omit<MockKeyInput, 'name'>] => [
      `without ${missing}`,
      { type: 'secret', permissions: scopes.filter((s) => s !== missing) },
    ]),
    ['no scope', { type: 'secret', permissions: [] }],
    ['origin', { type: 'secret', restrictions: { allowed_origins: [RESTRICTED_ORIGIN] } }],
  ]
  const keys = await mapConcurrently(wanted, AT_ONCE, ([name, input]) =>
    control.createKey(account.id, {
      name: `${label.replace(/^Contract suite/, 'contract')} ${name}`,
      ...input,
    }),
  )
  const [secret, publishable, revoked, expired, ...rest] = keys as [
    (typeof keys)[number],
    (typeof keys)[number],
    (typeof keys)[number],
    (typeof keys)[number],
    ...(typeof keys)[number][],
  ]
  const originKey = rest.pop() as (typeof keys)[number]
  await control.revokeKey(revoked.id)
  const scoped = rest.map((key, i) => ({
    key: key.value,
    scopes: i < scopes.length ? scopes.filter((s) => s !== scopes[i]) : [],
  }))
  const keyring: Keyring = {
    secret: secret.value,
    publishable: publishable.value,
    revoked: revoked.value,
    expired: expired.value,
    scoped,
    originRestricted: { key: originKey.value, origin: RESTRICTED_ORIGIN },
    ownAccount: true,
    names: new Map(),
    secrets: () => collectSecrets(keyring),
  }
  return {
    account,
    keyring,
    remove: async () => {
      await mapConcurrently(keys, AT_ONCE, (key) => control.revokeKey(key.id))
      await control.deleteAccount(account.id)
    },
  }
}

/**
 * Removes the mock's scenarios (error states and delays on demand), then creates, through the mock's control
 * plane, an enterprise account with roomy limits and every kind of key (`provisionAccount`), and a read-only
 * key of the seeded account that has call logs (whose limits are lifted for the run and restored in
 * teardown); finally asks which optional capabilities the control plane offers.
 */
export async function provisionMock(
  control: MockControl,
  scopes: string[],
  runId: string,
): Promise<Provisioned> {
  // A scenario left on would answer checks in the implementation's place: none survives into a run. The
  // first account listed before the run's own is the seeded one, with the demo call logs.
  const [, accounts, clockBefore] = await Promise.all([
    control.clearScenarios(),
    control.listAccounts(),
    control.clock().then((clock) => clock.offset_seconds),
  ])
  const callLogs = accounts[0]
  const undo: (() => Promise<void>)[] = []
  const [main, reader] = await Promise.all([
    provisionAccount(control, scopes, `Contract suite ${runId}`),
    callLogs && callLogReader(control, callLogs, runId),
  ])
  if (callLogs && reader) {
    main.keyring.callLogs = reader.value
    const previous = callLogs.custom_limits ? callLogs.limits : null
    undo.push(async () => {
      await Promise.all([
        control.updateAccount(callLogs.id, { limits: previous }),
        control.revokeKey(reader.id),
      ])
    })
  }
  undo.push(main.remove)
  const [, missing] = await Promise.all([
    control.advanceClock(EXPIRY_AHEAD_SECONDS + 1),
    probeCapabilities(control, main.account.id),
  ])
  /**
   * The mock's clock only moves forward (its control plane has no way back but a reset of the whole mock), and
   * the checks move it: teardown says how far, rather than claim the mock is as it was.
   */
  async function closingNotes(): Promise<string[]> {
    const notes = [
      callLogs
        ? 'The accounts the run created on the mock were deleted, with their keys; the seeded account it read call logs from has its limits back, and the read key the run made on it is revoked (revoked keys stay listed).'
        : 'The accounts the run created on the mock were deleted, with their keys.',
    ]
    const moved = (await control.clock()).offset_seconds - clockBefore
    if (moved > 0)
      notes.push(
        `The run moved the mock's clock forward by ${describeSeconds(moved)}; it never goes back by itself, and timestamps, key expiry and rate-limit windows follow it. POST /_mock/reset puts it back, with the rest of the mock's state.`,
      )
    return notes
  }
  return {
    keyring: main.keyring,
    accountId: main.account.id,
    undo,
    accounts: [main.account.id],
    missing,
    closingNotes,
  }
}

/** A read-only key of the seeded account with call logs, whose limits are lifted for the run. */
async function callLogReader(control: MockControl, account: MockAccount, runId: string) {
  const [reader] = await Promise.all([
    control.createKey(account.id, {
      type: 'secret',
      name: `contract ${runId} call logs (read)`,
      permissions: ['read'],
    }),
    control.updateAccount(account.id, { limits: ROOMY_LIMITS }),
  ])
  return reader
}

/**
 * `count` more accounts like the run's main one (`provisionAccount`), for checks that run at the same time:
 * each on an account of its own, so that none sees another's objects. They share the main keyring's read-only
 * key of the seeded account. The clock moves past their keys' expiry once all are made.
 */
export async function provisionLanes(
  control: MockControl,
  scopes: string[],
  runId: string,
  count: number,
  callLogs: string | undefined,
): Promise<{ keyrings: Keyring[]; accounts: string[]; remove: () => Promise<void> }> {
  const made: RunAccount[] = []
  const remove = async () => {
    await mapConcurrently(made, AT_ONCE, (lane) => lane.remove())
  }
  let lanes: RunAccount[]
  try {
    lanes = await mapConcurrently(
      Array.from({ length: count }, (_, i) => i + 1),
      count,
      async (lane) => {
        const account = await provisionAccount(control, scopes, `Contract suite ${runId} lane ${lane}`)
        made.push(account)
        return account
      },
    )
    await control.advanceClock(EXPIRY_AHEAD_SECONDS + 1)
  } catch (error) {
    await remove().catch(() => undefined)
    throw error
  }
  for (const lane of lanes) lane.keyring.callLogs = callLogs
  return {
    keyrings: lanes.map((lane) => lane.keyring),
    accounts: lanes.map((lane) => lane.account.id),
    remove,
  }
}

import { collectSecrets, type Keyring } from './keyring.ts'
import type { MockAccount, MockControl } from './mock-control.ts'

/** Limits of the run's main account: far out of the way, so only the rate-limit checks meet a 429. */
const ROOMY_LIMITS = { hourly: 10_000_000, burst: 1_000_000 }

/** The origin the provisioned origin-restricted key is bound to. */
export const RESTRICTED_ORIGIN = 'https://contract-suite.example'

/** What provisioning created, and how to undo what can be undone. */
export interface Provisioned {
  keyring: Keyring
  accountId: string
  /** Undo steps for teardown: restore limits, revoke keys, delete the accounts created. */
  undo: (() => Promise<void>)[]
  /** Accounts created (deleted in teardown). */
  accounts: string[]
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

/**
 * Removes the mock's scenarios (error states and delays on demand), then creates, through the mock's control
 * plane, an enterprise account with roomy limits and every kind of key:
 * secret, publishable, revoked, expired, one key lacking each scope, one with no scope, one bound to an
 * origin; and a read-only key of the seeded account that has call logs (whose limits are lifted for the
 * run and restored in teardown).
 */
export async function provisionMock(
  control: MockControl,
  scopes: string[],
  runId: string,
): Promise<Provisioned> {
  // A scenario left on would answer checks in the implementation's place: none survives into a run.
  await control.clearScenarios()
  const clockBefore = (await control.clock()).offset_seconds
  const undo: (() => Promise<void>)[] = []
  const keyIds: string[] = []
  const account = await control.createAccount({
    plan: 'enterprise',
    name: `Contract suite ${runId}`,
    limits: ROOMY_LIMITS,
  })
  const key = async (
    name: string,
    input: Omit<Parameters<MockControl['createKey']>[1], 'name'>,
    on = account.id,
  ) => {
    const created = await control.createKey(on, { name: `contract ${runId} ${name}`, ...input })
    keyIds.push(created.id)
    return created
  }
  const secret = await key('secret', { type: 'secret' })
  const publishable = await key('publishable', { type: 'publishable' })
  const revoked = await key('revoked', { type: 'secret' })
  await control.revokeKey(revoked.id)
  const clock = await control.clock()
  const expiresAt = new Date(Date.parse(clock.now) + 2000).toISOString().replace(/\.\d{3}Z$/, 'Z')
  const expired = await key('expired', { type: 'secret', restrictions: { expires_at: expiresAt } })
  const scoped = []
  for (const missing of scopes) {
    const permissions = scopes.filter((s) => s !== missing)
    scoped.push({
      key: (await key(`without ${missing}`, { type: 'secret', permissions })).value,
      scopes: permissions,
    })
  }
  scoped.push({ key: (await key('no scope', { type: 'secret', permissions: [] })).value, scopes: [] })
  const originKey = await key('origin', {
    type: 'secret',
    restrictions: { allowed_origins: [RESTRICTED_ORIGIN] },
  })
  await control.advanceClock(3)

  const callLogs = await callLogAccount(control, account.id)
  let callLogsKey: string | undefined
  if (callLogs) {
    callLogsKey = (await key('call logs (read)', { type: 'secret', permissions: ['read'] }, callLogs.id))
      .value
    await control.updateAccount(callLogs.id, { limits: ROOMY_LIMITS })
    const previous = callLogs.custom_limits ? callLogs.limits : null
    undo.push(async () => {
      await control.updateAccount(callLogs.id, { limits: previous })
    })
  }
  undo.push(async () => {
    for (const id of keyIds) await control.revokeKey(id)
    await control.deleteAccount(account.id)
  })

  const keyring: Keyring = {
    secret: secret.value,
    publishable: publishable.value,
    revoked: revoked.value,
    expired: expired.value,
    scoped,
    originRestricted: { key: originKey.value, origin: RESTRICTED_ORIGIN },
    callLogs: callLogsKey,
    ownAccount: true,
    names: new Map(),
    secrets: () => collectSecrets(keyring),
  }
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

  return { keyring, accountId: account.id, undo, accounts: [account.id], closingNotes }
}

/** The first seeded account (created before this run's), which holds the demo call logs. */
async function callLogAccount(control: MockControl, ownId: string): Promise<MockAccount | undefined> {
  const accounts = await control.listAccounts()
  return accounts.find((a) => a.id !== ownId)
}

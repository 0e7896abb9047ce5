import type { Need } from '../checks/types.ts'
import type { Keyring } from '../provision/keyring.ts'
import type { Plan, TargetConfig } from '../target/target.ts'

interface NeedState {
  config: Readonly<TargetConfig>
  keys: Keyring
  plan?: Plan
  provisioned: boolean
}

const REASONS: Record<Need, (state: NeedState) => string | undefined> = {
  write: ({ config }) => (config.destructive ? undefined : 'writes data: run with --destructive'),
  'rate-limits': ({ config }) =>
    config.destructive ? undefined : 'spends the rate-limit quota: run with --destructive',
  'publishable-key': ({ keys }) =>
    keys.publishable ? undefined : 'needs a publishable key (--publishable-key or VOICE_API_PUBLISHABLE_KEY)',
  'revoked-key': ({ keys }) =>
    keys.revoked ? undefined : 'needs a revoked key (--revoked-key or VOICE_API_REVOKED_KEY)',
  'expired-key': ({ keys }) =>
    keys.expired ? undefined : 'needs an expired key (--expired-key or VOICE_API_EXPIRED_KEY)',
  'scoped-keys': ({ keys }) =>
    keys.scoped.length > 0 ? undefined : 'needs keys with restricted scopes (--scoped-key <scopes>=<key>)',
  'origin-key': ({ keys }) =>
    keys.originRestricted ? undefined : 'needs a key restricted to an origin (--origin-key <origin>=<key>)',
  'own-account': ({ keys }) =>
    keys.ownAccount
      ? undefined
      : 'changes objects the run did not create (integrations, the owner): only on an account the run provisions (--provision mock)',
  clock: ({ provisioned }) => (provisioned ? undefined : "needs the mock's clock (--provision mock)"),
  'call-logs': ({ keys }) => (keys.callLogs ? undefined : 'needs an account with call logs'),
}

/** The reason the first unmet need gives, or undefined when the check can run. */
export function unmetNeed(needs: readonly Need[], state: NeedState): string | undefined {
  for (const need of needs) {
    const reason = REASONS[need](state)
    if (reason) return reason
  }
  return undefined
}

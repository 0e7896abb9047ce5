import type { Need } from '../checks/types.ts'
import type { MissingCapabilities } from '../provision/control-capabilities.ts'
import type { Keyring } from '../provision/keyring.ts'
import type { Plan, TargetConfig } from '../target/target.ts'

interface NeedState {
  config: Readonly<TargetConfig>
  keys: Keyring
  plan?: Plan
  provisioned: boolean
  /** The optional capabilities the provisioned control plane lacks, with the reason. */
  missing?: MissingCapabilities
}

/** Why a check cannot run: a need the run could meet with other settings, or one the target never meets. */
export interface UnmetNeed {
  reason: string
  /** The target lacks an optional capability: no setting of the run would change that. */
  notApplicable: boolean
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
  'simulated-calls': ({ provisioned }) =>
    provisioned ? undefined : "needs calls placed through the mock's control plane (--provision mock)",
  'beyond-read-only': ({ config, provisioned }) =>
    isReadOnlyRun(config, provisioned)
      ? "sends requests past the read-only run's budget: run with --destructive or --provision mock"
      : undefined,
}

/**
 * A read-only run (neither `--destructive` nor `--provision mock`): QA against a shared account, whose rate
 * limit the run spends with everyone else's, holding to the read-only run's budget.
 */
export function isReadOnlyRun(config: Readonly<TargetConfig>, provisioned: boolean): boolean {
  return !config.destructive && !provisioned
}

/** What the target itself lacks (checked once the run's settings allow the check). */
const CAPABILITIES: Partial<Record<Need, (state: NeedState) => string | undefined>> = {
  'simulated-calls': ({ missing }) => missing?.get('simulated-calls'),
}

/**
 * The first unmet need, or undefined when the check can run: a need of the run's settings (skipped, with what
 * to give), then a capability the target lacks (not applicable, with what it answered).
 */
export function unmetNeed(needs: readonly Need[], state: NeedState): UnmetNeed | undefined {
  for (const need of needs) {
    const reason = REASONS[need](state)
    if (reason) return { reason, notApplicable: false }
  }
  for (const need of needs) {
    const reason = CAPABILITIES[need]?.(state)
    if (reason) return { reason, notApplicable: true }
  }
  return undefined
}

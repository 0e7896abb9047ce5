import type { RulesetDefinition } from '@stoplight/spectral-core'
import { commonRuleset } from './common.ts'
import { v1Ruleset } from './v1.ts'

export { commonRuleset } from './common.ts'
export { v1Ruleset } from './v1.ts'

/** Which conventions a document follows: the platform contract, or the mock's control plane. */
export type ContractProfile = 'v1' | 'mock-control'

/** The project ruleset for a profile. The v1-only rules (401/429/403/permissions) skip mock-control. */
export function rulesetFor(profile: ContractProfile): RulesetDefinition {
  return profile === 'v1' ? v1Ruleset : commonRuleset
}

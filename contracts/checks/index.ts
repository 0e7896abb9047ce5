import type { Contract } from '../contract/contract.ts'
import { explorationCheck } from '../explore/exploration-check.ts'
import { afterChangeChecks } from './after-changes.ts'
import { agentChecks } from './agents.ts'
import { analyticsChecks } from './analytics.ts'
import { analyticsEdgeChecks } from './analytics-edges.ts'
import { atTheBoundsChecks } from './at-the-bounds.ts'
import { authenticationChecks } from './authentication.ts'
import { authorizationChecks } from './authorization.ts'
import { badInputChecks } from './bad-input.ts'
import { borrowedParametersCheck } from './borrowed-parameters.ts'
import { callLogChecks } from './call-logs.ts'
import { concurrencyChecks } from './concurrency.ts'
import { corsChecks } from './cors.ts'
import { filterPagesCheck } from './filter-pages.ts'
import { idempotencyChecks } from './idempotency.ts'
import { idempotencyExpiryChecks, idempotencyRetryChecks } from './idempotency-retries.ts'
import { instantFormChecks } from './instant-forms.ts'
import { integrationChecks } from './integrations.ts'
import { keyRestrictionChecks } from './key-restrictions.ts'
import { sameAnswerEveryKey } from './key-views.ts'
import { lengthsInCharactersCheck } from './lengths.ts'
import { normalisationChecks } from './normalisation.ts'
import { otherAccountsCheck } from './other-accounts.ts'
import { overlappingCallsCheck } from './overlapping-calls.ts'
import { oversizeDeleteChecks } from './oversize-delete.ts'
import { paginationChecks } from './pagination.ts'
import { partialUpdateChecks } from './partial-updates.ts'
import { queryFormChecks } from './query-forms.ts'
import { queuedCallCheck } from './queued-call.ts'
import { rateLimitMeaningChecks } from './rate-limit-meaning.ts'
import { rateLimitChecks } from './rate-limits.ts'
import { relationChecks } from './relations.ts'
import { requestFormChecks } from './request-forms.ts'
import { responseChecks } from './responses.ts'
import { routingChecks } from './routing.ts'
import { simulatedCallCheck } from './simulated-calls.ts'
import { teamMemberChecks } from './team-members.ts'
import { timestampChecks } from './timestamps.ts'
import { AREAS, type Area, type ContractCheck } from './types.ts'
import { usedUpWindowCheck } from './used-up-window.ts'
import { userAccountCheck } from './user-account.ts'
import { webhookChecks } from './webhooks.ts'
import { writesRefusedChecks } from './writes-refused.ts'

/**
 * Every check of the suite, in run order: the checks that move the mock's clock (`exclusive`) after all the
 * others, which read time-dependent data, and rate limits last, since they exhaust windows. Checks that cover
 * every operation are generated from the contract's operations.
 */
export function allChecks(contract: Contract): ContractCheck[] {
  const checks = [
    ...responseChecks,
    ...routingChecks,
    ...corsChecks,
    ...authenticationChecks,
    ...authorizationChecks(contract.operations),
    ...keyRestrictionChecks,
    sameAnswerEveryKey,
    ...agentChecks,
    ...paginationChecks,
    ...idempotencyChecks,
    ...callLogChecks,
    simulatedCallCheck,
    queuedCallCheck,
    overlappingCallsCheck,
    userAccountCheck,
    ...afterChangeChecks,
    ...concurrencyChecks,
    otherAccountsCheck,
    filterPagesCheck,
    ...analyticsChecks,
    ...analyticsEdgeChecks,
    ...integrationChecks,
    ...partialUpdateChecks,
    ...teamMemberChecks,
    ...normalisationChecks,
    ...timestampChecks,
    ...idempotencyRetryChecks,
    ...badInputChecks(contract.operations),
    lengthsInCharactersCheck,
    ...atTheBoundsChecks,
    borrowedParametersCheck(contract.operations),
    ...queryFormChecks,
    ...requestFormChecks,
    // Relations compare answers the checks above fetched (the run's cache); the writes that cannot write come
    // after every read, since any request other than GET empties that cache.
    ...relationChecks,
    ...instantFormChecks,
    ...writesRefusedChecks(contract.operations),
    ...oversizeDeleteChecks(contract.operations),
    ...webhookChecks,
    ...idempotencyExpiryChecks,
    // Run by the runner the first time the run waits for a used-up window (its 429s are then free), and
    // reported here; here it runs when no window was used up before it.
    usedUpWindowCheck,
    ...rateLimitChecks,
    ...rateLimitMeaningChecks,
    // Last: it moves the target's clock by days.
    explorationCheck(),
  ]
  return [...checks.filter((check) => !check.exclusive), ...checks.filter((check) => check.exclusive)]
}

/** The checks of the given areas (all when none are given); unknown area names are an error. */
export function selectChecks(checks: readonly ContractCheck[], areas?: readonly string[]): ContractCheck[] {
  if (!areas || areas.length === 0) return [...checks]
  const unknown = areas.filter((a) => !(a in AREAS))
  if (unknown.length > 0)
    throw new Error(`Unknown area(s) ${unknown.join(', ')}; areas: ${Object.keys(AREAS).join(', ')}.`)
  return checks.filter((check) => areas.includes(check.area as Area))
}

import type { AccountStore } from '../accounts.ts'
import { errors, type FieldError } from '../api-error.ts'
import type { Clock } from '../clock.ts'
import type { ControlHandler } from '../control/control-handler.ts'
import { json } from '../json-answer.ts'
import { assertRoom } from '../limits.ts'
import { newId } from '../random.ts'
import type { AccountDataStore } from '../resources/account-data.ts'
import type { CallLifecycle } from './call-lifecycle.ts'
import { type CallInput, type PlanContext, planCall } from './call-plan.ts'

/** What starting a call acts on. */
export interface CallControlOptions {
  accounts: AccountStore
  data: AccountDataStore
  clock: Clock
  lifecycle: CallLifecycle
  /** The faker and vocabulary are built from the contract on the first call (they cost a few ms). */
  planContext: () => PlanContext
}

/** Calls under way per account, and call logs per account (seeded ones included: the benchmark seeds 100,000). */
export const CALL_LIMITS = { underWayPerAccount: 100, callLogsPerAccount: 200_000 } as const

/** Problems of a call's input that the contract's schema cannot see (all named by field). */
function inputProblems(input: CallInput): FieldError[] {
  const problems: FieldError[] = []
  if (input.channel === 'web') {
    if (input.direction === 'outbound')
      problems.push({
        param: 'direction',
        code: 'invalid',
        message: "Web calls are inbound: 'direction' must be 'inbound' for channel 'web'.",
      })
    for (const param of ['from_number', 'to_number'] as const)
      if (input[param] !== undefined)
        problems.push({
          param,
          code: 'invalid',
          message: `Web calls have no phone numbers: leave '${param}' out for channel 'web'.`,
        })
  }
  if (input.from_number !== undefined && input.from_number === input.to_number)
    problems.push({
      param: 'to_number',
      code: 'invalid',
      message: "'to_number' must differ from 'from_number'.",
    })
  return problems
}

/** The control plane's `startCall` (mock-control.yaml, tag Calls). */
export function callControlHandlers(options: CallControlOptions): Record<string, ControlHandler> {
  const { accounts, data, clock, lifecycle } = options

  function accountId(params: Record<string, string>): string {
    const id = params.account_id ?? ''
    if (!accounts.get(id)) throw errors.resourceNotFound('account', id, 'account_id')
    return id
  }

  return {
    listAccountAgents({ params }) {
      const agents = data.get(accountId(params))?.agents.values() ?? []
      return json(200, {
        object: 'list',
        data: agents.map(({ id, name, status, webhook_url, webhook_events }) => ({
          id,
          name,
          status,
          webhook_url,
          webhook_events,
        })),
        has_more: false,
      })
    },
    listCalls({ params, query }) {
      const limit = typeof query.limit === 'number' ? query.limit : 10
      const logs = data.get(accountId(params))?.callLogs.page({ limit })
      return json(200, {
        object: 'list',
        data: logs?.ok ? logs.data : [],
        has_more: logs?.ok ? logs.has_more : false,
      })
    },
    startCall({ params, body }) {
      const accountId = params.account_id ?? ''
      if (!accounts.get(accountId)) throw errors.resourceNotFound('account', accountId, 'account_id')
      const input = body as CallInput
      const agent = data.get(accountId)?.agents.get(input.agent_id)
      const problems = inputProblems(input)
      if (!agent)
        problems.unshift({
          param: 'agent_id',
          code: 'invalid',
          message: `'agent_id': account ${accountId} has no agent '${input.agent_id}'.`,
        })
      if (problems.length > 0 || !agent) throw errors.validationFailed(problems)
      assertRoom(
        lifecycle.underWay(accountId),
        CALL_LIMITS.underWayPerAccount,
        'calls under way per account',
        'account_id',
      )
      assertRoom(
        data.get(accountId)?.callLogs.size ?? 0,
        CALL_LIMITS.callLogsPerAccount,
        'call logs per account',
        'account_id',
      )
      const now = clock.now()
      const { call, log } = planCall(
        input,
        agent,
        { accountId, callId: newId('call') },
        options.planContext(),
        { ms: now, iso: clock.iso() },
      )
      lifecycle.begin(call, log, now)
      return json(201, log)
    },
  }
}

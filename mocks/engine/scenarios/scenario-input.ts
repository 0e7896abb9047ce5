import type { AccountStore } from '../accounts.ts'
import type { FieldError } from '../api-error.ts'
import type { Router } from '../contract/router.ts'
import type { KeyStore } from '../keys/key-store.ts'
import { injectableForAll, injectableStatuses } from './operation-statuses.ts'
import type { ScenarioInput } from './scenario-table.ts'

/** What a scenario's input is checked against: the v1 operations, the accounts and the keys. */
export interface ScenarioInputContext {
  router: Router
  accounts: AccountStore
  keys: KeyStore
}

const problem = (param: string, code: string, message: string): FieldError => ({ param, code, message })

/** The statuses `status` may take for `operation` (`*`: those every operation may), or undefined if unknown. */
export function statusesFor(operation: string, router: Router): number[] | undefined {
  if (operation === '*') return injectableForAll(router.operations())
  const found = router.operation(operation)
  return found ? injectableStatuses(found) : undefined
}

function statusProblems(input: ScenarioInput, allowed: number[] | undefined): FieldError[] {
  if (input.status === undefined || allowed === undefined || allowed.includes(input.status)) return []
  if (input.status < 400)
    return [
      problem(
        'status',
        'invalid',
        `A scenario injects failures; ${input.status} is a success. Leave status out to keep the operation's real answer (with a delay, to slow it down).`,
      ),
    ]
  const what = input.operation === '*' ? 'every operation' : input.operation
  return [
    problem(
      'status',
      'invalid',
      `${what} cannot answer ${input.status}: use one of ${allowed.join(', ')} (GET /_mock/operations lists them).`,
    ),
  ]
}

function narrowingProblems(input: ScenarioInput, { accounts, keys }: ScenarioInputContext): FieldError[] {
  const out: FieldError[] = []
  if (input.account_id !== undefined && !accounts.get(input.account_id))
    out.push(problem('account_id', 'invalid', `No account with id '${input.account_id}'.`))
  if (input.key_id !== undefined) {
    const key = keys.get(input.key_id)
    if (!key) out.push(problem('key_id', 'invalid', `No key with id '${input.key_id}'.`))
    else if (input.account_id !== undefined && key.account_id !== input.account_id)
      out.push(
        problem('key_id', 'invalid', `Key '${input.key_id}' belongs to another account than account_id.`),
      )
  }
  return out
}

/**
 * What the contract's schema cannot say about a scenario: the operation exists, it can answer the status,
 * the effects go together, a uniform delay's bounds are in order, the account and key exist. Every problem
 * names its field; an empty list means the scenario may be stored.
 */
export function scenarioInputProblems(input: ScenarioInput, context: ScenarioInputContext): FieldError[] {
  const out: FieldError[] = []
  const allowed = statusesFor(input.operation, context.router)
  if (allowed === undefined)
    out.push(
      problem(
        'operation',
        'invalid',
        `'${input.operation}' is not an operationId of the v1 contract (GET /_mock/operations lists them), nor '*'.`,
      ),
    )
  out.push(...statusProblems(input, allowed))
  if (input.status === undefined && input.delay === undefined && input.network_error === undefined)
    out.push(problem('', 'required', 'A scenario needs an effect: status, delay or network_error.'))
  if (input.status !== undefined && input.network_error !== undefined)
    out.push(
      problem(
        'network_error',
        'invalid',
        'network_error cannot be combined with status: a dropped or unanswered request has no status.',
      ),
    )
  if (input.delay?.type === 'uniform' && input.delay.max_ms < input.delay.min_ms)
    out.push(problem('delay.max_ms', 'minimum', `'delay.max_ms' must be at least 'delay.min_ms'.`))
  out.push(...narrowingProblems(input, context))
  return out
}

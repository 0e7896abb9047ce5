import { expectError, inOrder } from './failure.ts'
import type { ContractCheck } from './types.ts'

/**
 * Whole numbers written otherwise than JSON writes them, each of which the contract names (its conventions,
 * "Numbers in query parameters": `0x10`, `+5`, `05`, `1e1` for a whole number, or a value with spaces around
 * it, is 400 `invalid_parameter`). `+5` is sent by the pagination checks already. Forms the contract does not
 * name (`1.0`, a parameter given twice) are left open (docs/decisions/011-allowed-forms.md) and not sent.
 */
const NOT_JSON_NUMBERS: [string, string][] = [
  ['05', 'a leading zero'],
  ['1e1', 'an exponent'],
  ['0x10', 'hexadecimal'],
  [' 1', 'a space before it'],
  ['1 ', 'a space after it'],
]

/**
 * `limit` written in each form the contract refuses: 400 `invalid_parameter` naming `limit` (when `param` is
 * sent), never a page. A reader that coerces the text (`Number(' 1')`, a regular expression missing an anchor)
 * serves a page instead. Five requests beyond a read-only run's budget, so only in runs that may spend them.
 */
const numberForms: ContractCheck = {
  id: 'bad-input/query-number-forms',
  area: 'bad-input',
  group: 'listAgents',
  title:
    'answers 400 invalid_parameter to limit written with a leading zero, an exponent, in hexadecimal or with a space around it',
  needs: ['beyond-read-only'],
  async run(ctx) {
    const queries = NOT_JSON_NUMBERS.map(([value]) => `limit=${encodeURIComponent(value)}`)
    // Asked at the same time (no answer depends on another), judged in order.
    const exchanges = await inOrder(
      queries.map((query) =>
        ctx.call({ method: 'GET', path: `/agents?${query}`, operationId: 'listAgents' }),
      ),
    )
    for (const [i, exchange] of exchanges.entries())
      expectError(
        exchange,
        400,
        { type: 'invalid_request_error', code: 'invalid_parameter', param: 'limit' },
        `for ?${queries[i]} (${NOT_JSON_NUMBERS[i]?.[1]}; the contract, "Numbers in query parameters": digits as JSON writes them, docs/decisions/011-allowed-forms.md leaves open only what it does not name)`,
      )
  },
}

/** Query values the contract refuses in forms the generated bad-input checks do not send. */
export const queryFormChecks: ContractCheck[] = [numberForms]

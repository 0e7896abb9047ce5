import { describe, expect, it } from 'vitest'
import { ordersOf } from '../../contracts/explore/sequence.ts'
import { faults } from '../fault-sets/held-out-17.ts'
import { exploresHeldOutSet } from './support/held-out-exploration.ts'

// Requests sent at once: faults of held-out set 17 (requests in flight together) that exploration alone could not
// meet while it sent one request at a time (4 of its 30 caught, all through a request's own answer). Each fault is
// the correct engine wrapped in test code, looked for with the first of sixteen fixed seeds that finds it.

describe('ordersOf', () => {
  it('gives every order of the requests, the order of the seconds the target handled them in first', () => {
    const orders = ordersOf([7, 6, 7])
    expect(orders[0]).toEqual([1, 0, 2])
    expect(orders).toHaveLength(6)
    expect(new Set(orders.map((o) => o.join())).size).toBe(6)
    expect(ordersOf([3])).toEqual([[0]])
  })
})

exploresHeldOutSet(
  'exploration alone against requests in flight together',
  faults,
  [
    // A DELETE answered 200 while a PATCH of the agent was in flight, the PATCH then writing it back.
    'agent-delete-lost-to-concurrent-patch',
    // Two changes of one integration at once, the later writing back what the earlier changed.
    'concurrent-integration-patches-lose-settings',
    // Two deletes of one call log at once both answered 200.
    'concurrent-call-log-deletes-both-succeed',
    // Two creates with one Idempotency-Key in flight together both carried out.
    'idempotent-creates-in-flight-both-carried-out',
    // Answers in flight together sharing one Request-Id ("Unique ID of this request").
    'request-id-shared-by-requests-in-flight',
  ],
  {
    showing: 'showing the requests sent at once',
    more: (run) => {
      expect(run.outcome.failure?.steps).toMatch(/^\d+\. \d requests at once: /m)
      // The script sends them at once too, and reads their answers once all are back.
      expect(run.outcome.failure?.script).toMatch(/^api \S+ [A-Z]+ .* &$/m)
      expect(run.outcome.failure?.script).toMatch(/^wait$/m)
    },
  },
)

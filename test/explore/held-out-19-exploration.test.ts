import { faults } from '../fault-sets/held-out-19.ts'
import { exploresHeldOutSet } from './support/held-out-exploration.ts'

// Faults of held-out set 19 (lifecycles) that exploration alone missed as the set was handed over, caught since it
// changes one object several times in a row with bodies made from what the object was before (body-edits.ts): a
// field set back to an earlier value, a field cleared, a map's key removed and added again with a new value.
// Each fault is the correct engine wrapped in test code, looked for with the first of sixteen fixed seeds that finds it.

const CAUGHT = [
  'readded-metadata-key-keeps-old-value',
  'reconnect-restores-first-connected-at',
  'disconnect-clears-config',
  'new-webhook-url-resets-subscriptions',
  'reactivated-agent-restamps-created-at',
]

exploresHeldOutSet(
  'exploration alone against faults of held-out set 19 it missed as handed over',
  faults,
  CAUGHT,
)

import type { AccountStore } from '../accounts.ts'
import type { Clock } from '../clock.ts'
import type { OpenApiDocument } from '../contract/document.ts'
import type { AccountDataStore } from '../resources/account-data.ts'
import type { Scheduler } from '../schedule/scheduler.ts'
import { callVocabulary } from '../seed/call-vocabulary.ts'
import { createContractFaker } from '../seed/contract-faker.ts'
import type { EngineState } from '../state/state.ts'
import { callControlHandlers } from './call-control-handlers.ts'
import { createCallLifecycle, type EmitEvent } from './call-lifecycle.ts'
import type { PlanContext } from './call-plan.ts'
import { createSimulatedCalls } from './simulated-calls.ts'

export interface CallsOptions {
  state: EngineState
  clock: Clock
  scheduler: Scheduler
  accounts: AccountStore
  data: AccountDataStore
  /** The v1 contract: conversations are made like the seed's, from its schemas. */
  document: OpenApiDocument
  seed: number
  emit: EmitEvent
}

/** Simulated calls: their table, their stages on the schedule, and the control plane's `startCall`. */
export function createCalls(options: CallsOptions) {
  const { state, clock, scheduler, accounts, data, emit } = options
  const calls = createSimulatedCalls(state)
  const lifecycle = createCallLifecycle({ calls, scheduler, data, emit })
  let context: PlanContext | undefined
  const planContext = () => {
    if (!context) {
      const faker = createContractFaker(options.document)
      context = { faker, words: callVocabulary(faker), seed: options.seed }
    }
    return context
  }
  return {
    handlers: callControlHandlers({ accounts, data, clock, lifecycle, planContext }),
    removeAccount: lifecycle.removeAccount,
  }
}

import type { AccountStore } from './accounts.ts'
import type { CallInput } from './calls/call-plan.ts'
import { createCalls } from './calls/create-calls.ts'
import type { Clock } from './clock.ts'
import type { OpenApiDocument } from './contract/document.ts'
import type { AccountDataStore } from './resources/account-data.ts'
import type { CallLog } from './resources/types.ts'
import { createScheduler } from './schedule/scheduler.ts'
import type { EngineState } from './state/state.ts'
import type { StepScope } from './state/store.ts'
import type { EngineRequest, EngineResponse } from './types.ts'
import type { EventListener } from './webhooks/call-event.ts'
import { createWebhooks } from './webhooks/create-webhooks.ts'
import type { AttemptOutcome, ClaimRequest } from './webhooks/webhook-deliveries.ts'

export interface SimulationOptions {
  state: EngineState
  clock: Clock
  accounts: AccountStore
  data: AccountDataStore
  /** The v1 contract (conversations are made from its schemas, like the seed's). */
  document: OpenApiDocument
  seed: number
  /** Record webhook deliveries for a deliverer to make. */
  deliver: boolean
  onScheduleError?: (message: string) => void
}

/**
 * What happens on the mock clock: the schedule, simulated calls, and their events and webhooks, composed.
 * `createEngine` registers their tables, their control-plane handlers and their part of account deletion.
 */
export function createSimulation(options: SimulationOptions) {
  const { state, clock, accounts, data } = options
  const scheduler = createScheduler(state, options.onScheduleError)
  const webhooks = createWebhooks({ state, clock, accounts, deliver: options.deliver })
  const calls = createCalls({
    state,
    clock,
    scheduler,
    accounts,
    data,
    document: options.document,
    seed: options.seed,
    emit: (type, log, call, at) =>
      webhooks.emit(
        type,
        log,
        {
          account_id: call.account_id,
          agent_id: call.agent_id,
          agent: data.get(call.account_id)?.agents.get(call.agent_id),
        },
        at,
      ),
  })
  return {
    scheduler,
    webhooks,
    /** Control-plane handlers (startCall, the signing secret, deliveries, ...). */
    handlers: { ...calls.handlers, ...webhooks.handlers },
    /**
     * Runs what fell due on the mock clock, each transition as of its own time; with nothing scheduled (most
     * requests, twice each) without reading the clock.
     */
    runDue: (): number => (scheduler.size === 0 ? 0 : scheduler.runDue(clock.now())),
    /** Drops an account's calls under way, secret and deliveries. */
    removeAccount(accountId: string): void {
      calls.removeAccount(accountId)
      webhooks.removeAccount(accountId)
    },
  }
}

export type Simulation = ReturnType<typeof createSimulation>

/** How the platform's simulation API reaches the engine's steps. */
export interface SimulationSteps {
  /**
   * Runs work as one step through the store (events told to listeners once it was kept); `scope`: what it
   * reads, when known (`StateStore.run`).
   */
  run<T>(work: () => T, scope?: () => StepScope): Promise<T>
  /** Answers a request as a step. */
  handle(request: EngineRequest): Promise<EngineResponse>
  /** The demo account's id (the default account of `calls.start`). */
  demoAccountId(): string
  adminToken?: string
}

/**
 * The scope of the schedule's steps and the deliverer's: they read only global tables (the schedule, calls under
 * way, deliveries, signing secrets) until something is due, which a shared store then runs over the whole state.
 */
const globalOnly = (): StepScope => ({})

/** The platform's members for calls, the schedule and webhooks (adapters and in-process users). */
export function simulationApi(simulation: Simulation, clock: Clock, steps: SimulationSteps) {
  const { scheduler, webhooks } = simulation
  /** Real time (epoch ms): the mock clock less its offset. */
  const realNow = () => clock.now() - clock.offsetSeconds() * 1000
  return {
    /**
     * Runs every transition due on the mock clock (calls ringing, connecting, ending, ...), as one step. Adapters
     * call it on a real-time timer while `nextDueAt()` is defined; requests run what is due on their own.
     */
    tick: () => steps.run(() => void simulation.runDue(), globalOnly),
    /**
     * When the next transition or webhook attempt falls due (epoch ms, mock clock), or undefined when nothing
     * is scheduled.
     */
    nextDueAt(): number | undefined {
      const next = scheduler.nextAt()
      const attempt = webhooks.delivering ? webhooks.deliveries.nextDueAt(realNow()) : undefined
      if (next === undefined) return attempt
      return attempt === undefined ? next : Math.min(next, attempt)
    },
    /**
     * Calls `listener` with every call event (`call.started`, `call.ended`, `transcript.ready`, `call.analyzed`)
     * as it is produced, whatever the agent subscribes to; returns how to stop listening.
     */
    onEvent: (listener: EventListener) => webhooks.bus.listen(listener),
    calls: {
      /**
       * Starts a simulated call, as `POST /_mock/accounts/{account_id}/calls` does (the demo account's by
       * default), and resolves to its call log (`queued`). Rejects with the control plane's message on bad input.
       */
      async start(input: Partial<CallInput> & { agent_id: string }, accountId?: string): Promise<CallLog> {
        const response = await steps.handle({
          method: 'POST',
          url: `/_mock/accounts/${accountId ?? steps.demoAccountId()}/calls`,
          headers: {
            'content-type': 'application/json',
            ...(steps.adminToken ? { authorization: `Bearer ${steps.adminToken}` } : {}),
          },
          body: JSON.stringify(input),
        })
        if (response.status !== 201) {
          const error = (response.body as { error?: { message?: string } } | undefined)?.error
          throw new Error(error?.message ?? `Starting the call failed (${response.status}).`)
        }
        return response.body as CallLog
      },
    },
    /** The deliverer's side of webhooks (the Node server): claim due attempts, record how they went. */
    webhooks: {
      claimDue: (request: ClaimRequest) => steps.run(() => webhooks.deliveries.claimDue(request), globalOnly),
      complete: (outcome: AttemptOutcome) =>
        steps.run(() => webhooks.deliveries.complete(outcome), globalOnly),
      /** Whether this engine records deliveries. */
      delivering: webhooks.delivering,
    },
  }
}

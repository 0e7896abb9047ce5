import type { Contract } from '../contract/contract.ts'
import type { CallInput } from '../http/client.ts'
import type { Exchange } from '../http/exchange.ts'
import type { Keyring } from '../provision/keyring.ts'
import type { MockControl } from '../provision/mock-control.ts'
import type { Plan, TargetConfig } from '../target/target.ts'

/** The areas of the summary, in report order. */
export const AREAS = {
  responses: 'Responses',
  authentication: 'Authentication',
  authorization: 'Authorization',
  resources: 'Resources',
  'bad-input': 'Bad input',
  'rate-limits': 'Rate limits',
  webhooks: 'Webhooks',
  explore: 'Exploration',
} as const

/** An area of the summary (`responses`, `authentication`, ...). */
export type Area = keyof typeof AREAS

/**
 * What a check needs from the run; missing needs skip it with a reason:
 * `write` (non-GET requests) and `rate-limits` need `--destructive`; `own-account` needs an account the run
 * created (`--provision mock`); `clock` the mock's clock; `call-logs` an account with call logs;
 * `simulated-calls` a control plane that places calls (an optional capability: a provisioned target that lacks
 * it makes the check not applicable); `beyond-read-only` a run that may spend requests past the read-only
 * run's budget (`--destructive` or `--provision mock`): reads that pin down rules the read-only run leaves to
 * other checks.
 */
export type Need =
  | 'write'
  | 'rate-limits'
  | 'publishable-key'
  | 'revoked-key'
  | 'expired-key'
  | 'scoped-keys'
  | 'origin-key'
  | 'own-account'
  | 'clock'
  | 'call-logs'
  | 'simulated-calls'
  | 'beyond-read-only'

/** Options of one call made by a check. */
export interface CheckCallInput extends Omit<CallInput, 'key'> {
  /** The key to send (default: the secret key); `null` sends none. */
  key?: string | null
  /** Skip the contract conformance of this response (for requests the contract does not describe). */
  conformance?: boolean
  /** Secrets sent in this request (e.g. credentials): no response may ever contain them. */
  sensitive?: string[]
  /** A rate-limit probe: outside the request budget, never paced, never shared, a 429 returned as is. */
  rateLimitProbe?: boolean
  /**
   * Send it even if an earlier check sent the same safe request and nothing changed since (by default such a
   * request is answered from the run's cache): for checks that need an answer of their own (a new `Request-Id`).
   */
  fresh?: boolean
}

/** What a check can use: the contract, the keys, and a client whose every response is checked. */
export interface CheckContext {
  contract: Contract
  target: Readonly<TargetConfig>
  keys: Keyring
  /** Unique per run; tags everything the run creates. */
  runId: string
  /** Sends a request and checks the response against the contract; throws a failure on any mismatch. */
  call(input: CheckCallInput): Promise<Exchange>
  /** Remembers a created object so that teardown removes it (done for 2xx POSTs automatically). */
  track(path: string, key?: string): void
  /** Forgets a tracked object (it was deleted by the check). */
  untrack(path: string): void
  /** Runs `undo` in teardown (e.g. revoking a key the check provisioned). */
  defer(undo: () => Promise<void>): void
  /** The account's plan (given, or read from `GET /user`). */
  plan?: Plan
  /**
   * A read-only run, held to its budget: a check that tries one rule on several parameters or lists tries it
   * on the first alone, and leaves the rest to runs that may spend more (as the need `beyond-read-only` does
   * for a whole check).
   */
  readOnly: boolean
  /** The mock's control plane, when provisioning. */
  mock?: MockControl
  /** Waits `seconds` of real time, announced with `reason` and counted in the run's waiting time. */
  wait(seconds: number, reason: string): Promise<void>
  /** Skips the rest of the check with a visible reason. */
  skip(reason: string): never
  /** Notes something worth showing in the report (not a failure). */
  note(message: string): void
  /** Tells how a long check is getting on (printed by the command as it goes). */
  progress?(message: string): void
  /** What the check's `prepare` made, when it has one. */
  prepared?: unknown
}

/** One contract check: a plain async function, shared by the Vitest suite and the mutation harness. */
export interface ContractCheck {
  /** Stable id, `area/topic/what`. */
  id: string
  area: Area
  /** Group within the area (an operation like `GET /agents`, or a topic). */
  group: string
  /** Present tense, after the behaviour: `returns 401 for a revoked key`. */
  title: string
  needs?: Need[]
  /** Whether the check also applies to a stateless mock (e.g. `prism mock`); default false. */
  stateless?: boolean
  /**
   * The check moves the mock's clock (which every account shares): it runs alone, never beside another
   * check. A provisioned run runs the other checks at the same time, each lane on an account of its own.
   */
  exclusive?: boolean
  /**
   * What an `exclusive` check can make before its turn, beside the other checks: accounts and keys through
   * the mock's control plane, and objects in them with those keys (never with the run's keys), no clock move.
   * Its result is `ctx.prepared`. Run just before `run` when the run has one lane.
   */
  prepare?(ctx: CheckContext): Promise<unknown>
  run(ctx: CheckContext): Promise<void>
}

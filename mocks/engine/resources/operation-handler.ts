import type { Account } from '../accounts.ts'
import type { Clock } from '../clock.ts'
import type { ApiKey } from '../keys/key-types.ts'
import type { OperationResult } from '../operation-result.ts'
import type { AccountData } from './account-data.ts'

/** Everything an operation handler may read; handlers are synchronous, so each request is atomic. */
export interface OperationContext {
  account: Account
  key: ApiKey
  data: AccountData
  params: Record<string, string>
  query: Record<string, unknown>
  /** The parsed JSON body (already validated against the contract when the handler sees it). */
  body: unknown
  clock: Clock
  /** The API's public base URL, ending in `/v1` (for `Location`). */
  baseUrl: string
}

/**
 * An operation's behaviour. `load` finds the addressed resource (404 comes before 422, docs/decisions/005-order-of-checks.md);
 * `run` acts on it. Either may throw an `ApiError`.
 */
export interface OperationHandler<R = unknown> {
  load?: (ctx: OperationContext) => R
  run: (ctx: OperationContext, resource: R) => OperationResult
}

// biome-ignore lint/suspicious/noExplicitAny: each handler has its own resource type
export type Handlers = Record<string, OperationHandler<any>>

/** A path parameter of the routed operation: the router gives every parameter its path names. */
export function pathParam(ctx: OperationContext, name: string): string {
  return ctx.params[name] as string
}

import type { Account } from '../accounts.ts'
import type { StoredKey } from '../keys/key-store.ts'
import type { RequestContext } from '../pipeline/request-context.ts'
import type { WindowState } from '../rate-limiter.ts'
import type { AccountData } from '../resources/account-data.ts'
import type { OperationContext } from '../resources/operation-handler.ts'
import type { JournalScenario } from '../scenarios/scenario-interceptor.ts'
import type { OperationResult } from '../types.ts'

/** What the v1 pipeline's steps learn about a request, in the order they learn it. */
export interface V1Context extends RequestContext {
  /** The key the request authenticated with (or the revoked or expired one it tried, for the journal). */
  key?: StoredKey
  /** The key's account. */
  account?: Account
  /** The mock clock's reading when the request was admitted. */
  now: number
  /** The rate-limit windows after this request was counted. */
  windows: readonly WindowState[]
  /** The scenario (or `Prefer` header) that answered or marked the request, for the journal. */
  scenario?: JournalScenario
  /** The account's data, once the operation is about to run. */
  data?: AccountData
  /** The `Idempotency-Key` as a SHA-256 digest, and the request it was sent with. */
  idempotency?: { key: string; fingerprint: string }
  /** What the operation's handler reads, once built. */
  handlerContext?: OperationContext
  /** The addressed resource (`handler.load`). */
  resource?: unknown
  /** What the operation returned, before it became an answer (an idempotent replay keeps it). */
  result?: OperationResult
}

/** The authenticated request's key and account: every step after authentication may rely on them. */
export function caller(ctx: V1Context): { key: StoredKey; account: Account } {
  if (!ctx.key || !ctx.account) throw new Error('A v1 step that needs the caller ran before authentication.')
  return { key: ctx.key, account: ctx.account }
}

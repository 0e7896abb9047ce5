import { toUser } from '../accounts.ts'
import type { Handlers } from './operation-handler.ts'

/** Behaviour of `GET /user`: the account that owns the key. */
export function userHandlers(): Handlers {
  return { getUser: { run: (ctx) => ({ status: 200, body: toUser(ctx.account) }) } }
}

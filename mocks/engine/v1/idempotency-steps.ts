import type { Account } from '../accounts.ts'
import { errors } from '../api-error.ts'
import type { Clock } from '../clock.ts'
import { IDEMPOTENCY_KEY_MAX_LENGTH } from '../idempotency.ts'
import type { Step } from '../pipeline/compose.ts'
import { routed } from '../pipeline/request-context.ts'
import { canonicalJson } from '../request-body.ts'
import type { AccountData } from '../resources/account-data.ts'
import { sha256Hex } from '../secrets.ts'
import { resultAnswer } from './operation-steps.ts'
import { caller, type V1Context } from './v1-context.ts'

/** The contract's pattern for `Idempotency-Key`, ^[\x21-\x7E]+$: printable ASCII, no spaces (a UUID fits). */
const IDEMPOTENCY_KEY_FORM = /^[\x21-\x7e]+$/

/**
 * 400 for an `Idempotency-Key` header the contract refuses; a POST's key is kept as a SHA-256 digest (the value
 * may be a secret someone pasted).
 */
export const idempotencyKeyStep: Step<V1Context> = (ctx, next) => {
  const sent = ctx.request.headers['idempotency-key']
  if (sent === undefined || routed(ctx).operation.method !== 'post') return next()
  if (sent.length === 0 || sent.length > IDEMPOTENCY_KEY_MAX_LENGTH)
    throw errors.invalidParameter(
      'Idempotency-Key',
      `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters long.`,
    )
  if (!IDEMPOTENCY_KEY_FORM.test(sent))
    throw errors.invalidParameter(
      'Idempotency-Key',
      'Idempotency-Key may hold only printable ASCII characters without spaces (a UUID v4 is recommended).',
    )
  ctx.idempotency = { key: sha256Hex(sent), fingerprint: '' }
  return next()
}

/**
 * A retry of a POST with the same key and request gets the stored answer with `Idempotent-Replayed: true`; a
 * first one's successful answer is stored for 24 hours. The account's data is looked up here, once.
 */
export function replayStep(deps: {
  dataFor: (account: Account) => AccountData
  clock: Clock
}): Step<V1Context> {
  return (ctx, next) => {
    const data = deps.dataFor(caller(ctx).account)
    ctx.data = data
    const idempotency = ctx.idempotency
    if (!idempotency) return next()
    idempotency.fingerprint = `${routed(ctx).operation.operationId}\u0000${canonicalJson(ctx.body)}`
    const previous = data.idempotency.lookup(idempotency.key, idempotency.fingerprint, ctx.now)
    if (previous.kind === 'replay') {
      ctx.result = {
        ...previous.result,
        headers: { ...previous.result.headers, 'idempotent-replayed': 'true' },
      }
      return resultAnswer(ctx)
    }
    const response = next()
    if (ctx.result && ctx.result.status < 300)
      data.idempotency.save(idempotency.key, idempotency.fingerprint, structuredClone(ctx.result), ctx.now)
    return response
  }
}

/** 409 for a key used before with another request (after the body was judged: 422 comes first). */
export const conflictStep: Step<V1Context> = (ctx, next) => {
  const { idempotency, data } = ctx
  if (
    idempotency &&
    data?.idempotency.lookup(idempotency.key, idempotency.fingerprint, ctx.now).kind === 'conflict'
  )
    throw errors.conflict(
      'idempotency_key_reused',
      'This Idempotency-Key was already used with a different request.',
      'Idempotency-Key',
    )
  return next()
}

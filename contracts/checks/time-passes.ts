import type { Exchange } from '../http/exchange.ts'
import type { CheckContext } from './types.ts'

/** An instant in ms from a timestamp the contract allows (RFC 3339 UTC, with or without fractions). */
export const instant = (value: unknown): number =>
  typeof value === 'string' ? Date.parse(value) : Number.NaN

/**
 * Lets `seconds` pass for the target: the mock's clock moves on (no wait), a real target is waited for.
 * Steps that must differ in time (a create and a later update) are then at least that far apart, even in
 * timestamps with whole seconds.
 */
export async function letTimePass(ctx: CheckContext, seconds: number): Promise<void> {
  if (ctx.mock) {
    await ctx.mock.advanceClock(seconds)
    return
  }
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000 + 100))
}

/**
 * The target's current time in ms, as it keeps it: the mock's clock, or the `Date` header of a response
 * (whole seconds). Undefined when neither is known (then checks compare timestamps with each other only).
 */
export async function targetNow(ctx: CheckContext, exchange?: Exchange): Promise<number | undefined> {
  if (ctx.mock) return Date.parse((await ctx.mock.clock()).now)
  const date = exchange?.response.headers.date
  const parsed = date === undefined ? Number.NaN : Date.parse(date)
  return Number.isNaN(parsed) ? undefined : parsed
}

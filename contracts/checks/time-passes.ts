import type { Exchange } from '../http/exchange.ts'
import type { CheckContext } from './types.ts'

/** An instant in ms from a timestamp the contract allows (RFC 3339 UTC, with or without fractions). */
export const instant = (value: unknown): number =>
  typeof value === 'string' ? Date.parse(value) : Number.NaN

/**
 * Lets `seconds` pass for the target: the mock's clock moves on (no wait), a real target is waited for.
 * Steps that must differ in time (a create and a later update) are then at least that far apart, even in
 * timestamps with whole seconds. Returns the mock's clock once moved (the start of the second it shows, ms).
 */
export async function letTimePass(ctx: CheckContext, seconds: number): Promise<number | undefined> {
  if (ctx.mock) return Date.parse((await ctx.mock.advanceClock(seconds)).now)
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000 + 100))
  return undefined
}

/**
 * When the target answered, by the target's own clock (ms since the epoch): at or after `from`, before
 * `until`. Never the client's clock: across a network, how long a request took says nothing about when the
 * target counted it.
 */
export interface TargetTime {
  from: number
  until: number
}

/** The mock's clock and `Date` show whole seconds: a reading of `n` means a time from `n` to `n` + 1 s. */
const SECOND_MS = 1000

/**
 * Sends a request and tells when the target answered it, by its own clock: the mock's clock read just before
 * (or `since`, read before and no earlier) and just after the request, or else the answer's `Date` header (RFC 9110: the moment the origin made the
 * answer, in whole seconds). `at` is undefined when the target tells neither.
 */
export async function timed(
  ctx: CheckContext,
  send: () => Promise<Exchange>,
  /** A reading of the mock's clock already made since the last answer (`letTimePass` gives one). */
  since?: number,
): Promise<{ exchange: Exchange; at?: TargetTime }> {
  const mock = ctx.mock
  if (mock) {
    const before = since ?? (await clockReading(ctx))
    const exchange = await send()
    const after = await clockReading(ctx)
    return { exchange, at: { from: before as number, until: (after as number) + SECOND_MS } }
  }
  const exchange = await send()
  const until = dateOf(exchange)
  return { exchange, at: until === undefined ? undefined : { from: until - SECOND_MS, until } }
}

/**
 * The mock's clock now, as the start of the second it shows (ms): the true time is at least that, and less than
 * a second more. Undefined without the mock.
 */
export async function clockReading(ctx: CheckContext): Promise<number | undefined> {
  return ctx.mock ? Date.parse((await ctx.mock.clock()).now) : undefined
}

/**
 * A bound for an answer that just came, by the target's clock: it came before the mock's clock reading now,
 * plus the second the reading shows. Undefined without the mock.
 */
export async function answeredBefore(ctx: CheckContext): Promise<number | undefined> {
  const reading = await clockReading(ctx)
  return reading === undefined ? undefined : reading + SECOND_MS
}

/**
 * Whether something the target did at a time known only to lie before `until` (ms, the target's clock: a
 * reading after it, plus the reading's second) surely happened before `boundary`: `until` is no later.
 */
export function surelyBefore(until: number | undefined, boundary: number): boolean {
  return until !== undefined && until <= boundary
}

/**
 * A bound for an answer by its own `Date` header (whole seconds): it was made before the next second (ms).
 * Undefined without a `Date`.
 */
export function dateOf(exchange: Exchange | undefined): number | undefined {
  const date = Date.parse(exchange?.response.headers.date ?? '')
  return Number.isNaN(date) ? undefined : date + SECOND_MS
}

/** The seconds that passed on the target's clock between two answers: more than `least`, less than `most`. */
export function secondsBetween(earlier: TargetTime, later: TargetTime): { least: number; most: number } {
  return { least: (later.from - earlier.until) / 1000, most: (later.until - earlier.from) / 1000 }
}

/**
 * What a countdown of `total` seconds shows once `passed` seconds have passed, in whole seconds rounded
 * either way: the lowest and the highest value a correct target may show.
 */
export function countdown(total: number, passed: { least: number; most: number }): [number, number] {
  return [Math.floor(total - passed.most), Math.ceil(total - passed.least)]
}

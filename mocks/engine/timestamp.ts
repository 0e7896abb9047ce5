import { toTimestamp } from './clock.ts'

/**
 * The instants the mock represents: 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z, the years ISO 8601
 * writes with four digits (past them, timestamps would read `+010000-...`, which no client parses).
 */
export const MIN_TIMESTAMP_MS = new Date(0).setUTCFullYear(0, 0, 1)
export const MAX_TIMESTAMP_MS = Date.UTC(9999, 11, 31, 23, 59, 59)

export type ParsedTimestamp =
  | {
      ok: true
      /** Milliseconds since the epoch (fractions of a second kept, to the millisecond). */
      ms: number
      /** The contract's form: UTC with `Z`, whole seconds (a fraction is dropped). */
      iso: string
    }
  | { ok: false; message: string }

const RFC_3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}

const fail = (message: string): ParsedTimestamp => ({ ok: false, message })

/**
 * The one parser of timestamp inputs (query filters, analytics ranges, key expiry): RFC 3339 with
 * `Z` or any offset, with or without a fraction, `T`/`Z` in either case. Refuses what names no
 * instant the mock can keep: impossible dates and times, offsets past ±23:59, a leap second (`:60`:
 * the platform's clock, like POSIX time, has none), and instants outside the years 0000-9999.
 * The message says what is wrong; the caller names the parameter.
 */
export function parseTimestamp(text: string): ParsedTimestamp {
  const match = RFC_3339.exec(text)
  if (!match) return fail(`'${text.slice(0, 40)}' is not an RFC 3339 timestamp like 2026-03-01T00:00:00Z.`)
  const [, y = '', mo = '', d = '', h = '', mi = '', s = '', fraction = '', zulu, sign, oh, om] = match
  const [year, month, day] = [Number(y), Number(mo), Number(d)]
  const [hour, minute, second] = [Number(h), Number(mi), Number(s)]
  const [offsetHours, offsetMinutes] = [Number(oh ?? 0), Number(om ?? 0)]
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month))
    return fail(`${y}-${mo}-${d} is not a day of the calendar.`)
  if (hour > 23 || minute > 59 || offsetHours > 23 || offsetMinutes > 59)
    return fail(`'${text.slice(0, 40)}' is not a time of day with a valid offset.`)
  if (second === 60) return fail('Leap seconds (:60) are not supported: use :59, or 00 of the next minute.')
  if (second > 59) return fail(`'${text.slice(0, 40)}' is not a time of day.`)
  // Date.UTC reads years 0-99 as 1900-1999: set the full year explicitly.
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  date.setUTCHours(hour, minute, second, Number(fraction.padEnd(3, '0').slice(0, 3)))
  const offsetMs = zulu ? 0 : (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000
  const ms = date.getTime() - offsetMs
  if (ms < MIN_TIMESTAMP_MS || ms >= MAX_TIMESTAMP_MS + 1000)
    return fail('The instant is outside 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z.')
  return { ok: true, ms, iso: toTimestamp(ms) }
}

import { DAY } from './time.ts'

const dayPrefixes = new Map<number, Uint8Array>()
const buffer = new Uint8Array(20)
const decoder = new TextDecoder()
const digit = (n: number) => 48 + n

/**
 * The contract's `Timestamp` (`2026-03-09T14:02:11Z`, whole seconds, UTC) of an epoch time in ms: the same text
 * as the clock's `toTimestamp`, written as one flat string. At 100,000 call logs that is about four times less
 * memory than concatenated pieces (a rope) and faster than formatting a `Date`.
 */
export function timestampOf(ms: number): string {
  const seconds = Math.floor(ms / 1000)
  const day = Math.floor(seconds / 86_400)
  let prefix = dayPrefixes.get(day)
  if (prefix === undefined) {
    if (dayPrefixes.size > 4096) dayPrefixes.clear()
    prefix = new TextEncoder().encode(new Date(day * DAY).toISOString().slice(0, 11))
    dayPrefixes.set(day, prefix)
  }
  buffer.set(prefix)
  const rest = seconds - day * 86_400
  const [h, m, s] = [Math.floor(rest / 3600), Math.floor(rest / 60) % 60, rest % 60]
  buffer[11] = digit(Math.floor(h / 10))
  buffer[12] = digit(h % 10)
  buffer[13] = 58 // :
  buffer[14] = digit(Math.floor(m / 10))
  buffer[15] = digit(m % 10)
  buffer[16] = 58
  buffer[17] = digit(Math.floor(s / 10))
  buffer[18] = digit(s % 10)
  buffer[19] = 90 // Z
  return decoder.decode(buffer)
}

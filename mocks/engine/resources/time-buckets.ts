export type Granularity = 'hour' | 'day' | 'week' | 'month' | 'total'

const formatters = new Map<string, Intl.DateTimeFormat>()

/** A cached formatter for a time zone, or undefined when the zone is unknown. */
export function zoneFormatter(timeZone: string): Intl.DateTimeFormat | undefined {
  let formatter = formatters.get(timeZone)
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      })
    } catch {
      return undefined
    }
    formatters.set(timeZone, formatter)
  }
  return formatter
}

interface LocalTime {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
}

function localTime(formatter: Intl.DateTimeFormat, ms: number): LocalTime {
  const parts: Record<string, number> = {}
  for (const part of formatter.formatToParts(ms))
    if (part.type !== 'literal') parts[part.type] = Number(part.value)
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  }
}

/** The UTC instant of a wall-clock time in the formatter's zone. */
function toUtc(formatter: Intl.DateTimeFormat, year: number, month: number, day: number, hour = 0): number {
  const wall = Date.UTC(year, month - 1, day, hour)
  const offsetAt = (ms: number) => {
    const t = localTime(formatter, ms)
    return Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second) - Math.floor(ms / 1000) * 1000
  }
  const guess = wall - offsetAt(wall)
  return wall - offsetAt(guess)
}

/** The start of the calendar bucket (in the zone) that contains `ms`. */
function bucketStart(formatter: Intl.DateTimeFormat, granularity: Granularity, ms: number): number {
  const t = localTime(formatter, ms)
  switch (granularity) {
    case 'hour':
      return Math.floor(ms / 1000) * 1000 - (t.minute * 60 + t.second) * 1000
    case 'day':
      return toUtc(formatter, t.year, t.month, t.day)
    case 'week': {
      const weekday = (new Date(Date.UTC(t.year, t.month - 1, t.day)).getUTCDay() + 6) % 7
      return toUtc(formatter, t.year, t.month, t.day - weekday)
    }
    case 'month':
      return toUtc(formatter, t.year, t.month, 1)
    default:
      return ms
  }
}

/** The start of the bucket after the one starting at `start`. */
function nextBucket(formatter: Intl.DateTimeFormat, granularity: Granularity, start: number): number {
  if (granularity === 'hour') return start + 3_600_000
  const t = localTime(formatter, start)
  if (granularity === 'day') return toUtc(formatter, t.year, t.month, t.day + 1)
  if (granularity === 'week') return toUtc(formatter, t.year, t.month, t.day + 7)
  return toUtc(formatter, t.year, t.month + 1, 1)
}

/**
 * Bucket boundaries that tile `[start, end)`: aligned to the granularity's calendar in the zone,
 * the first and last clipped to the range. Returns null when more than `maxBuckets` would be needed.
 */
export function bucketBoundaries(
  formatter: Intl.DateTimeFormat,
  granularity: Granularity,
  start: number,
  end: number,
  maxBuckets: number,
): number[] | null {
  if (granularity === 'total') return [start, end]
  const boundaries = [start]
  let cursor = bucketStart(formatter, granularity, start)
  while (true) {
    cursor = nextBucket(formatter, granularity, cursor)
    if (cursor >= end) break
    boundaries.push(cursor)
    if (boundaries.length > maxBuckets) return null
  }
  boundaries.push(end)
  return boundaries
}

/** Durations in milliseconds. */
export const SECOND = 1000
export const MINUTE = 60 * SECOND
export const HOUR = 60 * MINUTE
export const DAY = 24 * HOUR
/** The span the seeded calls cover, ending at the clock's now. */
export const MONTH = 30 * DAY

/** Any whole second within an hour, so that seeded times do not all share the clock's minutes and seconds. */
export const withinAnHour = (prng: { int(min: number, max: number): number }) => prng.int(0, 3599) * SECOND

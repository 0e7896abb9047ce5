/**
 * Equivalent ways to send the same JSON body: the contract compares bodies as JSON values ("compared as JSON
 * values, so whitespace and key order do not matter") and takes `application/json` whatever its case and with
 * parameters such as `charset=utf-8` (RFC 9110 section 8.3.1). A target must answer every spelling alike.
 */

/** The media types a JSON body is sent with, the plain one first. */
const MEDIA_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/json;charset=UTF-8',
] as const

/** The same value with the members of every object in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([name, member]) => [name, reversed(member)]),
  )
}

/**
 * A body's text and media type for `spelling` (0: compact, `application/json`): its two low bits pick the media
 * type, bit 4 reverses the members of every object, bit 8 adds whitespace.
 */
export function spellBody(value: unknown, spelling: number): { text: string; contentType: string } {
  const shaped = spelling & 4 ? reversed(value) : value
  return {
    text: JSON.stringify(shaped, null, spelling & 8 ? 1 : undefined),
    contentType: MEDIA_TYPES[spelling & 3] as string,
  }
}

/** Whether a spelling differs from the plain one. */
export const isRespelled = (spelling: number) => (spelling & 15) !== 0

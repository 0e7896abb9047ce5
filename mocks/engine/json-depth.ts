import { errors } from './api-error.ts'

/** Request bodies may nest arrays and objects at most this deep (the contract's bodies need 3). */
export const MAX_JSON_DEPTH = 64

/** The deepest nesting of arrays and objects in JSON text, counted without recursion; stops past `limit`. */
export function jsonDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x7b || c === 0x5b) {
      depth++
      if (depth > deepest) deepest = depth
      if (deepest > limit) return deepest
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  return deepest
}

/**
 * Refuses (400 `invalid_json`) a parsed body nested deeper than `MAX_JSON_DEPTH`: deeper values would
 * overflow the stack in recursive steps after parsing (fingerprints, validation, snapshots).
 */
export function assertJsonDepth(text: string | null, max = MAX_JSON_DEPTH): void {
  if (text !== null && jsonDepth(text, max) > max)
    throw errors.invalidJson(`The request body nests arrays or objects deeper than ${max} levels.`)
}

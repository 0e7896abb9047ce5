import type { Capsule } from './capsule.ts'

const utf8 = new TextEncoder()

/**
 * JSON text with every character outside ASCII written as its `\u` escape: the same value, in bytes that
 * decode on the other side as fast as a copy (a capsule is decoded before every check of a contract run).
 */
const ascii = (json: string) =>
  json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

/** The parts, one after the other, as one array of bytes. */
function concat(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

const COMMA = utf8.encode(',')
const CLOSE = utf8.encode(']')
const END = utf8.encode('}}}')

/**
 * Writes capsules as JSON bytes (UTF-8), reusing what it wrote before: records are never changed in place
 * (copy-on-write), so a record object met again is written as it was, and a table whose records are all the
 * ones of the last capsule is written as the same bytes. A capsule taken before every step (a contract run
 * takes one before each check) then costs the tables that changed, not the whole state.
 */
export function createCapsuleEncoder() {
  const pairs = new WeakMap<object, { key: string; bytes: Uint8Array }>()
  const tables = new Map<string, { records: readonly [string, unknown][]; bytes: Uint8Array }>()

  /** `[key, record]` as JSON bytes, reused while the record is the same object under the same key. */
  function pair(key: string, value: unknown): Uint8Array {
    if (typeof value !== 'object' || value === null) return utf8.encode(ascii(JSON.stringify([key, value])))
    const known = pairs.get(value)
    if (known?.key === key) return known.bytes
    const bytes = utf8.encode(ascii(JSON.stringify([key, value])))
    pairs.set(value, { key, bytes })
    return bytes
  }

  /** `"name":[[key, record], ...]` as bytes, the same bytes while the table holds the same records. */
  function table(name: string, records: readonly [string, unknown][]): Uint8Array {
    const known = tables.get(name)
    const same =
      known !== undefined &&
      known.records.length === records.length &&
      known.records.every((entry, i) => entry[0] === records[i]?.[0] && entry[1] === records[i]?.[1])
    if (same) return known.bytes
    const parts: Uint8Array[] = [utf8.encode(`${ascii(JSON.stringify(name))}:[`)]
    for (const [key, value] of records) {
      if (parts.length > 1) parts.push(COMMA)
      parts.push(pair(key, value))
    }
    parts.push(CLOSE)
    const bytes = concat(parts)
    tables.set(name, { records, bytes })
    return bytes
  }

  return {
    encode(capsule: Capsule): Uint8Array<ArrayBuffer> {
      const { state, ...head } = capsule
      for (const name of tables.keys()) if (!(name in state.tables)) tables.delete(name)
      const start = `${ascii(JSON.stringify(head)).slice(0, -1)},"state":{"version":${JSON.stringify(state.version)},"tables":{`
      const parts: Uint8Array[] = [utf8.encode(start)]
      for (const [name, records] of Object.entries(state.tables)) {
        if (parts.length > 1) parts.push(COMMA)
        parts.push(table(name, records))
      }
      parts.push(END)
      return concat(parts)
    },
  }
}

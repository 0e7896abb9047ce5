const COMMA = Buffer.from(',')
/** Most items kept encoded (and first ids remembered); past it everything is forgotten at once. */
const MAX_ENTRIES = 2_000

/** A body's bytes: a string as is (HTML), bytes as they are, undefined as none, anything else as JSON. */
export function encodeJson(body: unknown): Buffer {
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength)
  return Buffer.from(jsonText(body))
}

/** A body's text: a string as is (HTML), undefined as none, anything else (but bytes) as JSON. */
export function jsonText(body: unknown): string {
  if (body === undefined) return ''
  return typeof body === 'string' ? body : JSON.stringify(body)
}

type Item = Record<string, unknown> & { id: string }
type ListEnvelope = Record<string, unknown> & { object: 'list'; data: Item[] }

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype

const sameItems = (a: readonly Buffer[], b: readonly Buffer[]) =>
  a.length === b.length && a.every((bytes, i) => bytes === b[i])

/**
 * The envelope's members in order (`key, value`, `data`'s place without its value), when all of them but `data`
 * are plain values (compared by `===`, they encode alike), else undefined.
 */
function envelopeMembers(body: ListEnvelope): unknown[] | undefined {
  const members: unknown[] = []
  for (const key in body) {
    if (key === 'data') {
      members.push(key, undefined)
      continue
    }
    const value = body[key]
    if (value !== null && (typeof value === 'object' || typeof value === 'function')) return undefined
    members.push(key, value)
  }
  return members
}

const sameMembers = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((value, i) => value === b[i])

/** A `{ object: 'list', data: [...] }` body whose items are plain objects with a string `id`. */
function isListEnvelope(body: unknown): body is ListEnvelope {
  if (!isPlainObject(body) || body.object !== 'list' || !Array.isArray(body.data) || body.data.length === 0)
    return false
  if (typeof body.toJSON === 'function') return false
  return body.data.every((item) => isPlainObject(item) && typeof item.id === 'string' && !('toJSON' in item))
}

/** A single object with a string `id` (a stored object, or a view of one), not a list: encoded as an item. */
function isItem(body: unknown): body is Item {
  return isPlainObject(body) && typeof body.id === 'string' && body.object !== 'list' && !('toJSON' in body)
}

/** An item's encoded bytes and the fields they were encoded from (nested objects by identity). */
interface Entry {
  keys: string[]
  values: unknown[]
  bytes: Buffer
}

/** Whether `item` has exactly the entry's fields, in its order, holding the same values. */
function sameFields(entry: Entry, item: Item): boolean {
  let i = 0
  for (const key in item) {
    if (key !== entry.keys[i] || item[key] !== entry.values[i]) return false
    i++
  }
  return i === entry.keys.length
}

/**
 * Encodes response bodies as UTF-8 JSON, byte for byte what `JSON.stringify` gives. Items of a list
 * envelope that was listed before are reused as encoded bytes, so a list of stored objects (agents,
 * team members) costs a copy of bytes instead of serializing and encoding every item again; so is a single
 * object with an `id` answered again (the user, an agent), item by item as in a list.
 *
 * An item is reused only under its `id` with the same fields holding the same values (`===`; nested
 * objects by identity), so copies of a stored object hit and a publishable view of it does not. A
 * nested object changed in place is not seen: the owner must call `invalidate()` after anything that
 * may change the state, and pass `reuse: false` while a change may be under way.
 */
export function createJsonEncoder() {
  let entries = new Map<string, Entry>()
  let listed = new Set<string>()
  /** The last encoded list starting with each id, with its envelope's members besides `data` (`key, value`). */
  let lastLists = new Map<string, { members: unknown[]; items: Buffer[]; bytes: Buffer }>()

  function itemBytes(item: Item): Buffer {
    const entry = entries.get(item.id)
    if (entry && sameFields(entry, item)) return entry.bytes
    const keys = Object.keys(item)
    const bytes = Buffer.from(JSON.stringify(item))
    if (entries.size >= MAX_ENTRIES) entries = new Map()
    entries.set(item.id, { keys, values: keys.map((key) => item[key]), bytes })
    return bytes
  }

  function encodeList(body: ListEnvelope): Buffer {
    const items = body.data.map(itemBytes)
    // The same list as last time (the same envelope, the same encoded items): the same bytes.
    const members = envelopeMembers(body)
    const first = (body.data[0] as Item).id
    const last = lastLists.get(first)
    if (last && members && sameMembers(last.members, members) && sameItems(last.items, items))
      return last.bytes
    const before: string[] = []
    const after: string[] = []
    let fields = before
    for (const key of Object.keys(body)) {
      if (key === 'data') {
        fields = after
        continue
      }
      const json = JSON.stringify(body[key])
      if (json !== undefined) fields.push(`${JSON.stringify(key)}:${json}`)
    }
    const parts: Buffer[] = [Buffer.from(`{${before.map((field) => `${field},`).join('')}"data":[`)]
    items.forEach((bytes, i) => {
      if (i > 0) parts.push(COMMA)
      parts.push(bytes)
    })
    parts.push(Buffer.from(`]${after.map((field) => `,${field}`).join('')}}`))
    const bytes = Buffer.concat(parts)
    if (lastLists.size >= MAX_ENTRIES) lastLists = new Map()
    if (members) lastLists.set(first, { members, items, bytes })
    return bytes
  }

  return {
    /**
     * The body as `jsonText` gives it (a string, written once where it goes), bytes as they are, or, for a list
     * whose items can be reused (`reuse`), as bytes built from the items' encoded bytes.
     */
    encode(body: unknown, reuse: boolean): Buffer | string {
      if (body instanceof Uint8Array) return encodeJson(body)
      if (!reuse) return jsonText(body)
      if (isItem(body)) {
        // As a list: kept from the second answer on (an object read once is not worth keeping).
        if (entries.has(body.id) || listed.has(body.id)) return itemBytes(body)
        if (listed.size >= MAX_ENTRIES) listed = new Set()
        listed.add(body.id)
        return jsonText(body)
      }
      if (!isListEnvelope(body)) return jsonText(body)
      const first = (body.data[0] as Item).id
      // Kept from the second listing on: a page listed once (a deep cursor) is not worth keeping.
      if (entries.has(first) || listed.has(first)) return encodeList(body)
      if (listed.size >= MAX_ENTRIES) listed = new Set()
      listed.add(first)
      return jsonText(body)
    },

    /** Forgets every encoded item (call after any change to the state). */
    invalidate(): void {
      entries = new Map()
      listed = new Set()
      lastLists = new Map()
    },
  }
}

export type JsonEncoder = ReturnType<typeof createJsonEncoder>

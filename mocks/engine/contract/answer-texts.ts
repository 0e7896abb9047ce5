/** Most items (and lists) whose text is remembered; past it everything is forgotten at once. */
const MAX_REMEMBERED = 2_000

type Item = Record<string, unknown> & { id: string }
type ListEnvelope = Record<string, unknown> & { object: 'list'; data: Item[] }

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype

/**
 * A `{ object: 'list', data: [...] }` body whose other members are plain values and whose items are plain
 * objects with a string `id` (none with a `toJSON`: its text could depend on where it is).
 */
function isListEnvelope(body: unknown): body is ListEnvelope {
  if (!isPlainObject(body) || body.object !== 'list' || !Array.isArray(body.data) || body.data.length === 0)
    return false
  for (const key in body) {
    const member = body[key]
    if (key !== 'data' && member !== null && (typeof member === 'object' || typeof member === 'function'))
      return false
  }
  return body.data.every((item) => isPlainObject(item) && typeof item.id === 'string' && !('toJSON' in item))
}

/** Whether JSON leaves a member out of an object (`undefined`, a function, a symbol). */
const omitted = (value: unknown) =>
  value === undefined || typeof value === 'function' || typeof value === 'symbol'

/** A value JSON would not encode as it is (a `toJSON`, a date, NaN): such an item is not remembered. */
const UNCOPYABLE = Symbol('uncopyable')

/** What JSON encodes of a plain object: its members, in order. */
class ObjectCopy {
  constructor(
    readonly keys: string[],
    readonly values: unknown[],
  ) {}
}

/**
 * A copy of what JSON encodes of `value` (members it leaves out left out, in order), sharing its strings
 * (which never change), or `UNCOPYABLE`.
 */
function jsonCopy(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value : UNCOPYABLE
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    const copy: unknown[] = []
    for (const element of value) {
      const copied = jsonCopy(element)
      if (copied === UNCOPYABLE || omitted(copied)) return UNCOPYABLE
      copy.push(copied)
    }
    return copy
  }
  if (!isPlainObject(value) || Object.hasOwn(value, 'toJSON')) return UNCOPYABLE
  const keys: string[] = []
  const values: unknown[] = []
  for (const key in value) {
    const member = value[key]
    if (omitted(member)) continue
    const copied = jsonCopy(member)
    if (copied === UNCOPYABLE) return UNCOPYABLE
    keys.push(key)
    values.push(copied)
  }
  return new ObjectCopy(keys, values)
}

/**
 * Whether `value` encodes as JSON exactly as `copy` (a `jsonCopy`) does: the same members in the same order,
 * the same strings, finite numbers, booleans and nulls. Anything JSON would change on the way (a `toJSON`, a
 * date, NaN) does not match.
 */
function encodesAs(value: unknown, copy: unknown): boolean {
  if (value === copy) return typeof value !== 'number' || Number.isFinite(value)
  if (typeof value !== 'object' || value === null) return false
  if (copy instanceof ObjectCopy) {
    if (!isPlainObject(value)) return false
    const { keys, values } = copy
    let i = 0
    for (const key in value) {
      const member = value[key]
      if (omitted(member)) {
        if (key === 'toJSON') return false
        continue
      }
      if (key !== keys[i] || !encodesAs(member, values[i])) return false
      i++
    }
    return i === keys.length
  }
  if (!Array.isArray(copy) || !Array.isArray(value) || value.length !== copy.length) return false
  for (let i = 0; i < value.length; i++) if (!encodesAs(value[i], copy[i])) return false
  return true
}

/**
 * The JSON texts of answers, exactly `JSON.stringify`'s, built for lists from remembered item texts: listing
 * the same objects again costs a walk over them instead of encoding them, and gives the very same string (so
 * that a set of texts finds it at once). An item's text is reused only while the item encodes as the JSON it
 * was remembered with, compared member by member: nothing is assumed about who may change an object.
 */
export function createAnswerTexts() {
  let items = new Map<string, { copy: unknown; text: string }>()
  /** The last list text starting with each id, with its envelope's members besides `data`. */
  let lists = new Map<string, { members: unknown[]; texts: string[]; text: string }>()

  function itemText(item: Item): string {
    const known = items.get(item.id)
    if (known && encodesAs(item, known.copy)) return known.text
    const text = JSON.stringify(item)
    const copy = jsonCopy(item)
    if (copy !== UNCOPYABLE) {
      if (items.size >= MAX_REMEMBERED) items = new Map()
      items.set(item.id, { copy, text })
    }
    return text
  }

  /** The envelope's members besides `data`, as `key, value` pairs, with `data`'s place. */
  function membersOf(body: ListEnvelope): unknown[] {
    const members: unknown[] = []
    for (const key in body) members.push(key, key === 'data' ? undefined : body[key])
    return members
  }

  function sameMembers(body: ListEnvelope, members: readonly unknown[]): boolean {
    let i = 0
    for (const key in body) {
      if (members[i] !== key || (key !== 'data' && members[i + 1] !== body[key])) return false
      i += 2
    }
    return i === members.length
  }

  function listText(body: ListEnvelope): string {
    const texts = body.data.map(itemText)
    const first = (body.data[0] as Item).id
    const last = lists.get(first)
    if (
      last &&
      sameMembers(body, last.members) &&
      last.texts.length === texts.length &&
      last.texts.every((text, i) => text === texts[i])
    )
      return last.text
    let text = ''
    for (const key of Object.keys(body)) {
      const json = key === 'data' ? `[${texts.join(',')}]` : JSON.stringify(body[key])
      if (json !== undefined) text += `${text === '' ? '{' : ','}${JSON.stringify(key)}:${json}`
    }
    text += '}'
    if (lists.size >= MAX_REMEMBERED) lists = new Map()
    lists.set(first, { members: membersOf(body), texts, text })
    return text
  }

  return {
    /** `JSON.stringify(body)`, from remembered texts where a list's items encode as before. */
    of(body: unknown): string {
      return isListEnvelope(body) ? listText(body) : JSON.stringify(body)
    },
  }
}

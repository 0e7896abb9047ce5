/**
 * Bodies made from what an object was before, as a client edits what it read or sent: a field set back to a
 * value it had (a toggle switched back, a disconnected integration connected again with its old credentials, a
 * URL cleared then given back), a field that holds a value cleared (`null`), a key removed from a map field, a
 * removed key added again with a new value.
 * Changes a random body rarely makes, and where a store that keeps rows for old values shows.
 */

/** How a body is made from the object's history (`editedBody`). */
export const BODY_EDITS = ['back', 'clear', 'drop', 'readd'] as const
export type BodyEdit = (typeof BODY_EDITS)[number]

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** A field a request may send, and whether `null` is one of its values. */
export interface EditableField {
  name: string
  nullable: boolean
}

/**
 * The body of one field that `edit` makes from `history` (the values each field of the object had, the latest
 * last), among the fields the request may send; `usable` says whether a value may be sent as it is (an ID,
 * which differs between the two sides, may not). Undefined when the history offers nothing to edit.
 */
export function editedBody(
  edit: BodyEdit,
  history: ReadonlyMap<string, readonly unknown[]>,
  editable: readonly EditableField[],
  pick: number,
  word: string,
  usable: (value: unknown) => boolean,
): Record<string, unknown> | undefined {
  const fields = editable.map((f) => f.name)
  const valuesOf = (field: string) => (history.get(field) ?? []).filter(usable)
  const choose = <T>(items: readonly T[]): T | undefined => items[pick % Math.max(1, items.length)]
  switch (edit) {
    case 'back': {
      const field = choose(fields.filter((f) => valuesOf(f).length >= 2))
      if (field === undefined) return undefined
      const earlier = valuesOf(field).slice(0, -1)
      return { [field]: earlier[Math.floor(pick / 7) % earlier.length] }
    }
    case 'clear': {
      const field = choose(
        editable
          .filter((f) => f.nullable && (history.get(f.name) ?? []).length > 0)
          .filter((f) => (history.get(f.name) ?? []).at(-1) !== null)
          .map((f) => f.name),
      )
      return field === undefined ? undefined : { [field]: null }
    }
    case 'drop': {
      const field = choose(fields.filter((f) => Object.keys(latestMap(valuesOf(f))).length > 0))
      if (field === undefined) return undefined
      const latest = latestMap(valuesOf(field))
      const gone = choose(Object.keys(latest)) as string
      return { [field]: Object.fromEntries(Object.entries(latest).filter(([name]) => name !== gone)) }
    }
    case 'readd': {
      const removed = (f: string) => {
        const values = valuesOf(f)
        const latest = latestMap(values)
        return values.filter(isMap).flatMap((v) => Object.keys(v).filter((name) => !(name in latest)))
      }
      const field = choose(fields.filter((f) => removed(f).length > 0))
      if (field === undefined) return undefined
      const name = choose(removed(field)) as string
      return { [field]: { ...latestMap(valuesOf(field)), [name]: word } }
    }
  }
}

/** The latest value of a field when it is a map (an object), else none. */
function latestMap(values: readonly unknown[]): Record<string, unknown> {
  const latest = values[values.length - 1]
  return isMap(latest) ? latest : {}
}

import { fromJsonPointer, getAtPath, isJsonObject, type JsonPath } from './json.ts'

/** A value reached through zero or more local `$ref`s, and where it lives. */
export interface Resolved {
  value: unknown
  /** Path of the value in the document (the last `$ref` target, or the original path). */
  path: JsonPath
  /** The `$ref`s followed, in order; empty when the value was inline. */
  via: string[]
}

/**
 * Follows local `$ref`s (`#/components/...`) from a value at `path` until it reaches an object
 * without `$ref`. Unresolvable or external refs stop the walk with `value: undefined`.
 */
export function resolveLocalRef(document: unknown, value: unknown, path: JsonPath): Resolved {
  let current: Resolved = { value, path, via: [] }
  for (let hop = 0; hop < 20; hop++) {
    const ref = isJsonObject(current.value) ? current.value.$ref : undefined
    if (typeof ref !== 'string') return current
    if (!ref.startsWith('#')) return { value: undefined, path: current.path, via: [...current.via, ref] }
    const target = fromJsonPointer(ref.slice(1))
    current = { value: getAtPath(document, target), path: target, via: [...current.via, ref] }
  }
  return { value: undefined, path: current.path, via: current.via }
}

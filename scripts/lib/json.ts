/** A JSON object as parsed from YAML or JSON. */
export type JsonObject = Record<string, unknown>

/** A location inside a document: object keys and array indexes from the root. */
export type JsonPath = ReadonlyArray<string | number>

/** Whether a value is a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The entries of a value that is an object; none for anything else. */
export function objectEntries(value: unknown): Array<[string, unknown]> {
  return isJsonObject(value) ? Object.entries(value) : []
}

/** Encodes a path as a JSON Pointer (`/paths/~1agents/get`). */
export function toJsonPointer(path: JsonPath): string {
  return path.map((segment) => `/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')
}

/** Decodes a JSON Pointer into its segments (array indexes stay strings). */
export function fromJsonPointer(pointer: string): string[] {
  if (pointer === '') return []
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
}

/** Renders a path for people: `paths["/agents"].get.responses[200].content["application/json"]`. */
export function formatPath(path: JsonPath): string {
  if (path.length === 0) return '$'
  return path
    .map((segment, index) => {
      if (typeof segment === 'number' || /^\d+$/.test(segment)) return `[${segment}]`
      if (/^[A-Za-z_$][\w$-]*$/.test(segment)) return index === 0 ? segment : `.${segment}`
      return `[${JSON.stringify(segment)}]`
    })
    .join('')
}

/** The value at a path, or undefined when the path leaves the document. */
export function getAtPath(root: unknown, path: JsonPath): unknown {
  let node = root
  for (const segment of path) {
    if (Array.isArray(node)) node = node[Number(segment)]
    else if (isJsonObject(node)) node = node[String(segment)]
    else return undefined
  }
  return node
}

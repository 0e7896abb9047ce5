import { readFile } from 'node:fs/promises'
import { parse } from 'yaml'
import { isJsonObject, type JsonObject } from './json.ts'

/** Reads a YAML (or JSON) OpenAPI document and returns its root object. Throws when it is not one. */
export async function loadYamlDocument(file: string): Promise<JsonObject> {
  const text = await readFile(file, 'utf8')
  const value: unknown = parse(text)
  if (!isJsonObject(value)) throw new Error(`${file}: the document root is not an object`)
  return value
}

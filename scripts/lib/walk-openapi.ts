import { isJsonObject, type JsonObject, type JsonPath, objectEntries } from './json.ts'
import { type SchemaVisitor, walkSchema } from './walk-schema.ts'

/** The HTTP methods a Path Item can hold, in the order the specification lists them. */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

/** Callbacks for the objects of an OpenAPI 3.1 document; each is called once per definition. */
export interface OpenApiVisitor {
  /** An Operation Object. */
  operation?: (operation: JsonObject, path: JsonPath) => void
  /** A Response Object (not a `$ref` to one). */
  response?: (response: JsonObject, path: JsonPath) => void
  /** A Parameter or Header Object: both carry `schema`, `example` and `examples`. */
  parameter?: (parameter: JsonObject, path: JsonPath) => void
  /** A Media Type Object (`content["application/json"]`). */
  mediaType?: (mediaType: JsonObject, path: JsonPath) => void
  /** A Schema Object at a position where the document holds a schema (not its subschemas). */
  schema?: (schema: JsonObject, path: JsonPath) => void
}

/**
 * Walks an OpenAPI 3.1 document: paths, webhooks, callbacks and every components section.
 * Objects that are `$ref`s are skipped, so each definition is visited once, where it is written.
 */
export function walkOpenApi(document: JsonObject, visitor: OpenApiVisitor): void {
  const walker = new Walker(visitor)
  for (const [name, item] of objectEntries(document.paths)) walker.pathItem(item, ['paths', name])
  for (const [name, item] of objectEntries(document.webhooks)) walker.pathItem(item, ['webhooks', name])
  const components = isJsonObject(document.components) ? document.components : {}
  const at = (section: string, name: string): JsonPath => ['components', section, name]
  for (const [name, value] of objectEntries(components.schemas)) walker.schema(value, at('schemas', name))
  for (const [name, value] of objectEntries(components.responses))
    walker.response(value, at('responses', name))
  for (const [name, value] of objectEntries(components.parameters))
    walker.parameter(value, at('parameters', name))
  for (const [name, value] of objectEntries(components.headers)) walker.parameter(value, at('headers', name))
  for (const [name, value] of objectEntries(components.requestBodies))
    walker.content(value, at('requestBodies', name))
  for (const [name, value] of objectEntries(components.pathItems))
    walker.pathItem(value, at('pathItems', name))
  for (const [name, value] of objectEntries(components.callbacks))
    walker.callback(value, at('callbacks', name))
}

/** Visits every Schema Object of a document, including subschemas, once each. */
export function walkAllSchemas(document: JsonObject, visit: SchemaVisitor): void {
  walkOpenApi(document, { schema: (schema, path) => walkSchema(schema, path, visit) })
}

/** Calls `fn` for each element of an array value, with its path. */
function eachItem(value: unknown, path: JsonPath, fn: (item: unknown, path: JsonPath) => void): void {
  if (!Array.isArray(value)) return
  for (const [index, item] of value.entries()) fn(item, [...path, index])
}

/** A non-`$ref` object, or undefined. */
function definition(value: unknown): JsonObject | undefined {
  return isJsonObject(value) && typeof value.$ref !== 'string' ? value : undefined
}

class Walker {
  constructor(private readonly visitor: OpenApiVisitor) {}

  pathItem(value: unknown, path: JsonPath): void {
    const item = definition(value)
    if (!item) return
    eachItem(item.parameters, [...path, 'parameters'], (p, at) => this.parameter(p, at))
    for (const method of HTTP_METHODS) this.operation(item[method], [...path, method])
  }

  operation(value: unknown, path: JsonPath): void {
    if (!isJsonObject(value)) return
    this.visitor.operation?.(value, path)
    eachItem(value.parameters, [...path, 'parameters'], (p, at) => this.parameter(p, at))
    this.content(value.requestBody, [...path, 'requestBody'])
    for (const [code, response] of objectEntries(value.responses))
      this.response(response, [...path, 'responses', code])
    for (const [name, callback] of objectEntries(value.callbacks))
      this.callback(callback, [...path, 'callbacks', name])
  }

  callback(value: unknown, path: JsonPath): void {
    const callback = definition(value)
    if (!callback) return
    for (const [expression, item] of Object.entries(callback)) this.pathItem(item, [...path, expression])
  }

  response(value: unknown, path: JsonPath): void {
    const response = definition(value)
    if (!response) return
    this.visitor.response?.(response, path)
    for (const [name, header] of objectEntries(response.headers))
      this.parameter(header, [...path, 'headers', name])
    this.content(response, path)
  }

  /** The `content` map of a Request Body, Response, Parameter or Header. */
  content(value: unknown, path: JsonPath): void {
    const owner = definition(value)
    if (!owner) return
    for (const [type, mediaType] of objectEntries(owner.content)) {
      const at = [...path, 'content', type]
      if (!isJsonObject(mediaType)) continue
      this.visitor.mediaType?.(mediaType, at)
      this.schema(mediaType.schema, [...at, 'schema'])
      for (const [field, encoding] of objectEntries(mediaType.encoding)) {
        for (const [name, header] of objectEntries(isJsonObject(encoding) ? encoding.headers : undefined))
          this.parameter(header, [...at, 'encoding', field, 'headers', name])
      }
    }
  }

  parameter(value: unknown, path: JsonPath): void {
    const parameter = definition(value)
    if (!parameter) return
    this.visitor.parameter?.(parameter, path)
    this.schema(parameter.schema, [...path, 'schema'])
    this.content(parameter, path)
  }

  schema(value: unknown, path: JsonPath): void {
    if (isJsonObject(value)) this.visitor.schema?.(value, path)
  }
}

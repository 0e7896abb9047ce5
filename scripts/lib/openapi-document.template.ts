/**
 * The shape of an OpenAPI 3.1 document as plain data: loose (every object also allows other
 * keys), typed where code reads it (paths, operations, parameters, responses, components).
 */
export interface OpenApiDocument {
  openapi: string
  info: { title: string; version: string; [key: string]: unknown }
  paths: Record<string, PathItemObject>
  components?: ComponentsObject
  [key: string]: unknown
}

/** A Reference Object: a `$ref` to another part of the document. */
export interface ReferenceObject {
  $ref: string
  summary?: string
  description?: string
}

/** A Schema Object (JSON Schema 2020-12 with the OpenAPI vocabulary). */
export interface SchemaObject {
  [keyword: string]: unknown
}

/** The `components` section. */
export interface ComponentsObject {
  schemas?: Record<string, SchemaObject>
  responses?: Record<string, ResponseObject | ReferenceObject>
  parameters?: Record<string, ParameterObject | ReferenceObject>
  requestBodies?: Record<string, RequestBodyObject | ReferenceObject>
  headers?: Record<string, HeaderObject | ReferenceObject>
  [key: string]: unknown
}

/** A Path Item: the operations of one path. */
export interface PathItemObject {
  parameters?: Array<ParameterObject | ReferenceObject>
  get?: OperationObject
  put?: OperationObject
  post?: OperationObject
  delete?: OperationObject
  options?: OperationObject
  head?: OperationObject
  patch?: OperationObject
  trace?: OperationObject
  [key: string]: unknown
}

/** An operation, with the project's `x-required-permission` extension. */
export interface OperationObject {
  operationId?: string
  tags?: string[]
  /** The scopes the operation needs, all of them (`[]`: a valid key is enough). */
  'x-required-permission'?: string[]
  parameters?: Array<ParameterObject | ReferenceObject>
  requestBody?: RequestBodyObject | ReferenceObject
  responses?: Record<string, ResponseObject | ReferenceObject>
  [key: string]: unknown
}

/** A Parameter Object. */
export interface ParameterObject {
  name: string
  in: 'query' | 'header' | 'path' | 'cookie'
  required?: boolean
  schema?: SchemaObject
  [key: string]: unknown
}

/** A Header Object. */
export interface HeaderObject {
  required?: boolean
  schema?: SchemaObject
  [key: string]: unknown
}

/** A Request Body Object. */
export interface RequestBodyObject {
  content: Record<string, MediaTypeObject>
  required?: boolean
  [key: string]: unknown
}

/** A Response Object. */
export interface ResponseObject {
  description: string
  headers?: Record<string, HeaderObject | ReferenceObject>
  content?: Record<string, MediaTypeObject>
  [key: string]: unknown
}

/** A Media Type Object (`content["application/json"]`). */
export interface MediaTypeObject {
  schema?: SchemaObject
  example?: unknown
  examples?: Record<string, unknown>
  [key: string]: unknown
}

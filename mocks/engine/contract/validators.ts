import type { ErrorObject, ValidateFunction } from 'ajv'
import { createContractAjv } from '../../../openapi/contract-ajv.ts'
import type { FieldError } from '../api-error.ts'
import { answerChecks } from './answer-checks.ts'
import {
  jsonSchemaOf,
  type Mode,
  type OpenApiDocument,
  type OperationObject,
  type ParameterObject,
} from './document.ts'

const ROOT_ID = 'urn:voice-api-kit:contract'

function createAjv(document: OpenApiDocument, mode: Mode) {
  return createContractAjv(document, ROOT_ID, {
    coerceTypes: mode === 'query',
    useDefaults: mode !== 'check',
  })
}

const CODE_BY_KEYWORD: Record<string, string> = {
  required: 'required',
  additionalProperties: 'unknown_field',
  unevaluatedProperties: 'unknown_field',
  type: 'type',
  enum: 'enum',
  const: 'enum',
  format: 'format',
  minimum: 'minimum',
  exclusiveMinimum: 'minimum',
  maximum: 'maximum',
  exclusiveMaximum: 'maximum',
  minLength: 'min_length',
  maxLength: 'max_length',
  pattern: 'pattern',
  minItems: 'min_items',
  maxItems: 'max_items',
  uniqueItems: 'unique_items',
  minProperties: 'min_properties',
  maxProperties: 'max_properties',
}

/** Turns Ajv's errors into the `errors[]` of a 422: one entry per field and rule, dotted paths. */
export function toFieldErrors(ajvErrors: readonly ErrorObject[], root = ''): FieldError[] {
  const seen = new Set<string>()
  const out: FieldError[] = []
  for (const error of ajvErrors) {
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if') continue
    const segments = error.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    const params = error.params as Record<string, unknown>
    const extra = (params.missingProperty ?? params.additionalProperty ?? params.unevaluatedProperty) as
      | string
      | undefined
    if (extra !== undefined) segments.push(extra)
    // A tagged oneOf whose tag is missing or names no branch: the tag field is at fault.
    if (error.keyword === 'discriminator') segments.push(String(params.tag))
    const param = segments.length > 0 ? segments.join('.') : root
    const code =
      error.keyword === 'discriminator'
        ? discriminatorCode(params)
        : (CODE_BY_KEYWORD[error.keyword] ?? 'invalid')
    const key = `${param}\u0000${code}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push({ param, code, message: describe(param, code, error) })
  }
  return out
}

/** `required` for a missing tag, `enum` for one that names no branch, `type` for one that is not a string. */
function discriminatorCode(params: Record<string, unknown>): string {
  if (params.error === 'mapping') return 'enum'
  return params.tagValue === undefined ? 'required' : 'type'
}

/** A field error's message, in words. @messageText */
function describe(param: string, code: string, error: ErrorObject): string {
  const params = error.params as Record<string, unknown>
  if (error.keyword === 'discriminator')
    return code === 'enum'
      ? `'${param}' names no known kind, got ${JSON.stringify(params.tagValue)}.`
      : `'${param}' is required: a string naming the kind.`
  switch (code) {
    case 'required':
      return `'${param}' is required.`
    case 'min_properties':
      return param === ''
        ? 'The body must contain at least one field.'
        : `'${param}' needs at least one field.`
    case 'unknown_field':
      return `'${param}' is not a known field.`
    case 'enum':
      return `'${param}' must be one of: ${((params.allowedValues as unknown[] | undefined) ?? [params.allowedValue]).map((v) => JSON.stringify(v)).join(', ')}.`
    case 'type':
      return `'${param}' must be of type ${String(params.type)}.`
    default:
      return `'${param}' ${error.message ?? 'is invalid'}.`
  }
}

/** JSON's grammar for numbers: no hex, octal or binary, no `+`, no leading zeros, no spaces. */
const INTEGER_TEXT = /^-?(0|[1-9][0-9]*)$/
const NUMBER_TEXT = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/

/**
 * What a query value for a numeric parameter fails to be (`'a whole number'`, `'a number'`), or
 * undefined when it is well written or the parameter is not numeric. Ajv's coercion alone would read
 * `0x10` as 16 and `5 ` as 5 (it compares with `==`).
 */
function malformedNumber(schema: ParameterObject['schema'], value: unknown): string | undefined {
  const type = (schema as { type?: unknown } | undefined)?.type
  const items = (schema as { items?: { type?: unknown } } | undefined)?.items?.type
  const types = [type, items].flat()
  const texts = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string')
  if (types.includes('integer') && texts.some((text) => !INTEGER_TEXT.test(text))) return 'a whole number'
  if (types.includes('number') && texts.some((text) => !NUMBER_TEXT.test(text))) return 'a number'
  return undefined
}

export type QueryResult =
  | { ok: true; values: Record<string, unknown> }
  | { ok: false; param: string; message: string }

/** Compiled validators per contract document, shared by every platform built from it. */
const compiledByDocument = new WeakMap<
  OpenApiDocument,
  { instances: Map<Mode, ReturnType<typeof createAjv>>; cache: Map<string, ValidateFunction | null> }
>()

/**
 * Validators compiled from the contract with Ajv 2020-12 and ajv-formats, compiled lazily per
 * operation so that start-up stays fast: query parameters, headers, request bodies and responses.
 * What is compiled is kept per document: a new platform (a test's fresh mock) compiles nothing again.
 */
export function createValidators(document: OpenApiDocument) {
  let compiledState = compiledByDocument.get(document)
  if (!compiledState) {
    compiledState = { instances: new Map(), cache: new Map() }
    compiledByDocument.set(document, compiledState)
  }
  const { instances, cache } = compiledState
  /** An operation's query parameters and their validator, found once per operation (the hot path). */
  const queryPlans = new WeakMap<
    readonly ParameterObject[],
    { declared: ParameterObject[]; validate: ValidateFunction | null }
  >()

  function queryPlan(operationId: string, parameters: readonly ParameterObject[]) {
    let plan = queryPlans.get(parameters)
    if (!plan) {
      const declared = parameters.filter((p) => p.in === 'query')
      const validate = compiled(`query:${operationId}`, 'query', () => ({
        type: 'object',
        properties: Object.fromEntries(declared.map((p) => [p.name, p.schema ?? {}])),
        required: declared.filter((p) => p.required).map((p) => p.name),
      }))
      plan = { declared, validate }
      queryPlans.set(parameters, plan)
    }
    return plan
  }

  function compiled(key: string, mode: Mode, schemaOf: () => unknown): ValidateFunction | null {
    const cacheKey = `${mode}:${key}`
    let validate = cache.get(cacheKey)
    // Stryker disable next-line ConditionalExpression: a cache: compiling the same schema again gives the same validator
    if (validate === undefined) {
      const schema = schemaOf()
      if (schema === undefined) validate = null
      else {
        let ajv = instances.get(mode)
        // Stryker disable next-line ConditionalExpression: a cache: a fresh Ajv of the same mode compiles the same validators
        if (!ajv) {
          ajv = createAjv(document, mode)
          instances.set(mode, ajv)
        }
        validate = ajv.compile(schema)
      }
      cache.set(cacheKey, validate)
    }
    return validate
  }

  return {
    /** Checks and coerces the query string against the operation's query parameters; unknown ones fail. */
    query(operationId: string, parameters: readonly ParameterObject[], query: URLSearchParams): QueryResult {
      const { declared, validate } = queryPlan(operationId, parameters)
      const values: Record<string, unknown> = {}
      // Most requests send no query: nothing to read but the defaults the validator fills in.
      if (query.size !== 0)
        for (const name of new Set(query.keys())) {
          const parameter = declared.find((p) => p.name === name)
          if (!parameter) return { ok: false, param: name, message: `Unknown query parameter '${name}'.` }
          const all = query.getAll(name)
          const isArray = parameter.schema?.type === 'array'
          if (!isArray && all.length > 1)
            return { ok: false, param: name, message: `'${name}' may be given only once.` }
          values[name] = isArray ? all.flatMap((v) => v.split(',')) : all[0]
          const malformed = malformedNumber(parameter.schema, values[name])
          if (malformed !== undefined)
            return {
              ok: false,
              param: name,
              message: `'${name}' must be ${malformed}, written in decimal digits, got '${String(values[name]).slice(0, 40)}'.`,
            }
        }
      if (validate && !validate(values)) {
        const [first] = toFieldErrors(validate.errors ?? [], 'query')
        const message = first?.message ?? 'Invalid query parameter.'
        return { ok: false, param: first?.param.split('.')[0] ?? 'query', message }
      }
      return { ok: true, values }
    },

    /**
     * Field errors of a request body against the operation's JSON schema (empty when valid).
     * Fills in the contract's defaults, so pass a body the caller owns.
     */
    body(operationId: string, operation: OperationObject, body: unknown): FieldError[] {
      const validate = compiled(`body:${operationId}`, 'body', () =>
        jsonSchemaOf(document, operation.requestBody),
      )
      if (!validate || validate(body)) return []
      return toFieldErrors(validate.errors ?? [])
    },

    // Answers checked against the contract (the mock's own response check, scenarios' injected answers).
    ...answerChecks(document, compiled),
  }
}

export type Validators = ReturnType<typeof createValidators>

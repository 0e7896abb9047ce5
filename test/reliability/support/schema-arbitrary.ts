import fc from 'fast-check'

type Schema = Record<string, unknown>

/** Resolves a local `$ref` (`#/components/...`) in a contract document. */
function resolve(document: unknown, schema: Schema): Schema {
  let current = schema
  for (let hops = 0; typeof current.$ref === 'string' && hops < 20; hops++) {
    const path = current.$ref.slice(2).split('/')
    current = path.reduce<Schema>((node, part) => (node[part] ?? {}) as Schema, document as Schema)
  }
  return current
}

const num = (value: unknown) => (typeof value === 'number' ? value : undefined)

function stringArbitrary(schema: Schema): fc.Arbitrary<unknown> {
  if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern))
  if (schema.format === 'email') return fc.emailAddress()
  if (schema.format === 'uri') return fc.webUrl()
  if (schema.format === 'date-time')
    return fc
      .date({
        min: new Date('2000-01-01T00:00:00Z'),
        max: new Date('2035-01-01T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString())
  const minLength = num(schema.minLength) ?? 0
  return fc.string({ minLength, maxLength: Math.max(minLength, Math.min(num(schema.maxLength) ?? 30, 30)) })
}

/**
 * Values that mostly satisfy a JSON Schema of the contract (types, enums, bounds, required fields,
 * patterns), so that fuzzed requests get past validation often enough to reach the handlers.
 */
export function schemaArbitrary(document: unknown, input: Schema, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(document, input)
  if (depth > 6) return fc.constant(null)
  const next = (s: unknown) => schemaArbitrary(document, (s ?? {}) as Schema, depth + 1)
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]))
  if ('const' in schema) return fc.constant(schema.const)
  if (Array.isArray(schema.allOf)) {
    const [first, ...rest] = schema.allOf as Schema[]
    return next({
      ...Object.assign({}, ...rest),
      ...schema,
      allOf: undefined,
      ...resolve(document, first ?? {}),
    })
  }
  const choices = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined
  if (Array.isArray(choices)) return fc.oneof(...choices.map((c) => next(c)))
  if (Array.isArray(schema.type))
    return fc.oneof(...(schema.type as string[]).map((type) => next({ ...schema, type })))
  switch (schema.type) {
    case 'string':
      return stringArbitrary(schema)
    case 'integer':
      return fc.integer({ min: num(schema.minimum) ?? -1000, max: num(schema.maximum) ?? 100_000 })
    case 'number':
      return fc.double({
        min: num(schema.minimum) ?? num(schema.exclusiveMinimum) ?? -1000,
        max: num(schema.maximum) ?? 100_000,
        noNaN: true,
        noDefaultInfinity: true,
      })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array': {
      const maxLength = Math.min(num(schema.maxItems) ?? 3, 3)
      const minLength = Math.min(num(schema.minItems) ?? 0, maxLength)
      return schema.uniqueItems
        ? fc.uniqueArray(next(schema.items), { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(next(schema.items), { minLength, maxLength })
    }
    default: {
      const properties = (schema.properties ?? {}) as Record<string, Schema>
      if (Object.keys(properties).length === 0 && typeof schema.additionalProperties === 'object')
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), next(schema.additionalProperties), {
          maxKeys: 3,
        })
      const record = Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, next(s)]))
      return fc.record(record, { requiredKeys: (schema.required ?? []) as string[] })
    }
  }
}

/** Valid-looking values, and the same with one field replaced, removed or added (unknown). */
export function mutatedArbitrary(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    !!v && typeof v === 'object' && !Array.isArray(v)
  return fc.oneof(
    { weight: 4, arbitrary: valid },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, fc.nat(), fc.jsonValue({ maxDepth: 2 })).map(([value, i, other]) => {
        if (!isObject(value)) return other
        const keys = Object.keys(value)
        const key = keys[i % Math.max(1, keys.length)]
        return key === undefined ? value : { ...value, [key]: other }
      }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, fc.nat()).map(([value, i]) => {
        if (!isObject(value)) return value
        const copy = { ...value }
        delete copy[Object.keys(copy)[i % Math.max(1, Object.keys(copy).length)] ?? '']
        return copy
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'unknown_field'))
        .map(([value, key]) =>
          isObject(value)
            ? JSON.parse(`{"${key}":{"x":1},${JSON.stringify(value).slice(1)}`.replace(',}', '}'))
            : value,
        ),
    },
  )
}

/** The JSON request-body schema of each operation, by `METHOD /path` (paths as in the document). */
export function requestBodySchemas(document: unknown): Map<string, Schema> {
  const out = new Map<string, Schema>()
  const paths = (document as { paths: Record<string, Record<string, Schema>> }).paths
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation || typeof operation !== 'object' || !('requestBody' in operation)) continue
      const body = resolve(document, operation.requestBody as Schema)
      const schema = (body.content as Record<string, { schema?: Schema }> | undefined)?.['application/json']
        ?.schema
      if (schema) out.set(`${method.toUpperCase()} ${path}`, schema)
    }
  }
  return out
}

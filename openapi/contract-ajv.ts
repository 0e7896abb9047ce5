import type { Options, ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

// ajv-formats is CommonJS; its default export arrives wrapped under some loaders and bundlers.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020

/**
 * Deep copy of a schema whose local `$ref`s (`#/components/...`) point at the document registered as `id`.
 * A `discriminator` keeps only its `propertyName`: Ajv reads each branch's `const` tag and refuses a `mapping`
 * (which code generators need, so the contract has one).
 */
function rebase(value: unknown, id: string): unknown {
  if (Array.isArray(value)) return value.map((item) => rebase(item, id))
  if (!value || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value)) {
    if (key === 'discriminator' && child && typeof child === 'object') {
      out[key] = { propertyName: (child as { propertyName?: unknown }).propertyName }
      continue
    }
    out[key] =
      key === '$ref' && typeof child === 'string' && child.startsWith('#/') ? id + child : rebase(child, id)
  }
  return out
}

/**
 * An Ajv 2020-12 instance with ajv-formats that knows a contract's `components` under `id`, so any schema
 * taken from the contract compiles with its local `$ref`s intact. Lenient about OpenAPI's own keywords
 * (`strict: false`); `options` adds Ajv options such as `coerceTypes` or `useDefaults`.
 */
export function createContractAjv(document: { components?: unknown }, id: string, options: Options = {}) {
  // `discriminator`: a tagged `oneOf` is checked against the branch its tag names only, so an error names
  // the field at fault rather than every branch's mismatches.
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    validateSchema: false,
    discriminator: true,
    ...options,
  })
  addFormats(ajv)
  ajv.addSchema({ $id: id, components: rebase(document.components ?? {}, id) })
  return {
    ajv,
    /** Compiles a schema taken from the contract (inline, or `{ $ref: '#/components/schemas/X' }`). */
    compile: (schema: unknown): ValidateFunction => ajv.compile(rebase(schema, id) as object),
  }
}

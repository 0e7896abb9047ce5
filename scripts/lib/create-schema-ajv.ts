import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { type JsonObject, objectEntries } from './json.ts'
import { walkAllSchemas } from './walk-openapi.ts'

/** Keywords of the OpenAPI 3.1 base vocabulary: annotations for validation purposes. */
const OAS_KEYWORDS = ['example', 'discriminator', 'xml', 'externalDocs']

/** The `x-` extension keywords used anywhere in the document's schemas. */
function extensionKeywords(document: JsonObject): Set<string> {
  const found = new Set<string>()
  walkAllSchemas(document, (schema) => {
    for (const [key] of objectEntries(schema)) if (key.startsWith('x-')) found.add(key)
  })
  return found
}

/**
 * An Ajv (JSON Schema 2020-12, ajv-formats) that knows a whole OpenAPI document under `id`,
 * so any schema in it compiles by pointer (`${id}#/components/schemas/Agent`) with its local
 * `$ref`s intact. Strict about schema keywords (a misspelt keyword is an error), with the OAS
 * vocabulary and the document's own `x-` extensions declared.
 */
export function createSchemaAjv(document: JsonObject, id: string): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
  })
  addFormats.default(ajv)
  ajv.addVocabulary([...OAS_KEYWORDS, ...extensionKeywords(document)])
  // The document's root (`openapi`, `paths`, ...) is compiled as a schema too: declare its fields.
  ajv.addVocabulary(Object.keys(document).filter((key) => !ajv.getKeyword(key)))
  ajv.addSchema(document, id)
  return ajv
}

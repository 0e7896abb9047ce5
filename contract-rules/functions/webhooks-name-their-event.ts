import { createRulesetFunction, type IFunctionResult } from '@stoplight/spectral-core'
import { isJsonObject, type JsonObject, type JsonPath } from '../../scripts/lib/json.ts'
import { resolveLocalRef } from '../../scripts/lib/resolve-local-ref.ts'
import { webhookOperations } from './webhook-operations.ts'

/** The properties of a schema, `$ref`s followed; those of `allOf` parts merged in. */
function propertiesOf(document: JsonObject, schema: unknown, path: JsonPath, depth = 0): JsonObject {
  const resolved = resolveLocalRef(document, schema, path).value
  if (!isJsonObject(resolved) || depth > 10) return {}
  const own = isJsonObject(resolved.properties) ? resolved.properties : {}
  const parts = Array.isArray(resolved.allOf) ? resolved.allOf : []
  return Object.assign({}, ...parts.map((part) => propertiesOf(document, part, path, depth + 1)), own)
}

/**
 * Spectral function (run on the unresolved document root): every webhook operation takes a required JSON
 * body that is an event envelope for the event the webhook is named after: properties `id`, `object`,
 * `created_at` and `data`, and `type` whose `const` is the webhook's name.
 */
export const webhooksNameTheirEvent = createRulesetFunction<JsonObject, null>(
  { input: { type: 'object' }, options: null },
  (document) => {
    const results: IFunctionResult[] = []
    for (const { name, operation, path } of webhookOperations(document)) {
      const body = resolveLocalRef(document, operation.requestBody, [...path, 'requestBody']).value
      const content = isJsonObject(body) && isJsonObject(body.content) ? body.content : {}
      const media = content['application/json']
      if (!isJsonObject(body) || body.required !== true || !isJsonObject(media)) {
        results.push({
          message: `webhook '${name}' must take a required application/json request body (the event)`,
          path: [...path, 'requestBody'],
        })
        continue
      }
      const at = [...path, 'requestBody', 'content', 'application/json', 'schema']
      const properties = propertiesOf(document, media.schema, at)
      const missing = ['id', 'object', 'type', 'created_at', 'data'].filter((field) => !(field in properties))
      if (missing.length > 0)
        results.push({
          message: `webhook '${name}': the event schema lacks ${missing.map((f) => `'${f}'`).join(', ')}`,
          path: at,
        })
      const type = resolveLocalRef(document, properties.type, at).value
      const constant = isJsonObject(type) ? type.const : undefined
      if (!missing.includes('type') && constant !== name)
        results.push({
          message: `webhook '${name}': the event schema's 'type' must be const '${name}', not ${JSON.stringify(constant)}`,
          path: at,
        })
    }
    return results
  },
)

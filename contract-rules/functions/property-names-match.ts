import { createRulesetFunction, type IFunctionResult } from '@stoplight/spectral-core'
import type { JsonObject } from '../../scripts/lib/json.ts'
import { objectEntries } from '../../scripts/lib/json.ts'
import { walkAllSchemas } from '../../scripts/lib/walk-openapi.ts'

/** Options: the pattern every property name matches. */
export interface PropertyNameOptions {
  pattern: string
}

/**
 * Spectral function (run on the unresolved document root): every name under `properties`, in
 * every schema and subschema of the document, matches the pattern. Maps keyed by data
 * (`additionalProperties`) are not property names and are not checked.
 */
export const propertyNamesMatch = createRulesetFunction<JsonObject, PropertyNameOptions>(
  {
    input: { type: 'object' },
    options: {
      type: 'object',
      properties: { pattern: { type: 'string' } },
      required: ['pattern'],
      additionalProperties: false,
    },
  },
  (document, { pattern }) => {
    const regex = new RegExp(pattern)
    const results: IFunctionResult[] = []
    walkAllSchemas(document, (schema, path) => {
      for (const [name] of objectEntries(schema.properties)) {
        if (regex.test(name)) continue
        results.push({
          message: `property '${name}' does not match ${pattern}`,
          path: [...path, 'properties', name],
        })
      }
    })
    return results
  },
)

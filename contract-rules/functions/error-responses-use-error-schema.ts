import { createRulesetFunction, type IFunctionResult } from '@stoplight/spectral-core'
import { isJsonObject, type JsonObject, objectEntries } from '../../scripts/lib/json.ts'
import { describeResponse, groupByDefinition, operationResponses } from './operation-responses.ts'

/** Options: the shared error schema, as a `$ref` string. */
export interface ErrorSchemaOptions {
  errorRef: string
}

/** Whether a schema is the error schema, or an `allOf` that includes it. */
function usesErrorSchema(schema: unknown, errorRef: string): boolean {
  if (!isJsonObject(schema)) return false
  if (schema.$ref === errorRef) return true
  return (
    Array.isArray(schema.allOf) && schema.allOf.some((part) => isJsonObject(part) && part.$ref === errorRef)
  )
}

/** Whether a status key is a client error (`400`..`499`, `4XX`). */
function isClientError(status: string): boolean {
  return /^4(\d\d|XX)$/i.test(status)
}

/**
 * Spectral function (run on the unresolved document root): every 4xx response of every operation
 * has content, and each media type's schema is the shared error schema, directly or through
 * `allOf`. A response reached through `#/components/responses/*` is reported once, at the component.
 */
export const errorResponsesUseErrorSchema = createRulesetFunction<JsonObject, ErrorSchemaOptions>(
  {
    input: { type: 'object' },
    options: {
      type: 'object',
      properties: { errorRef: { type: 'string' } },
      required: ['errorRef'],
      additionalProperties: false,
    },
  },
  (document, { errorRef }) => {
    const results: IFunctionResult[] = []
    const clientErrors = operationResponses(document).filter((entry) => isClientError(entry.status))
    for (const group of groupByDefinition(clientErrors)) {
      const response = group[0]?.response
      const path = group[0]?.path ?? []
      if (!response) continue
      const content = objectEntries(response.content)
      if (content.length === 0) {
        results.push({
          message: `${describeResponse(group)} has no content; use ${errorRef}`,
          path: [...path],
        })
      }
      for (const [type, mediaType] of content) {
        if (usesErrorSchema(isJsonObject(mediaType) ? mediaType.schema : undefined, errorRef)) continue
        results.push({
          message: `${describeResponse(group)}: the ${type} schema must be ${errorRef} (or an allOf including it)`,
          path: [...path, 'content', type, 'schema'],
        })
      }
    }
    return results
  },
)

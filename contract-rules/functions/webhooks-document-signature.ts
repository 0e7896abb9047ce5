import { createRulesetFunction, type IFunctionResult } from '@stoplight/spectral-core'
import { isJsonObject, type JsonObject } from '../../scripts/lib/json.ts'
import { resolveLocalRef } from '../../scripts/lib/resolve-local-ref.ts'
import { webhookOperations } from './webhook-operations.ts'

/** Options: the header parameters every webhook documents, required (lower-case names). */
export interface SignatureOptions {
  headers: string[]
}

/**
 * Spectral function (run on the unresolved document root): every webhook operation documents each of the
 * signature headers as a required `in: header` parameter (its own or its Path Item's), so that a receiver
 * knows what to verify.
 */
export const webhooksDocumentSignature = createRulesetFunction<JsonObject, SignatureOptions>(
  {
    input: { type: 'object' },
    options: {
      type: 'object',
      properties: { headers: { type: 'array', items: { type: 'string' } } },
      required: ['headers'],
      additionalProperties: false,
    },
  },
  (document, { headers }) => {
    const results: IFunctionResult[] = []
    for (const { name, operation, item, path } of webhookOperations(document)) {
      const declared = [
        ...(Array.isArray(operation.parameters) ? operation.parameters : []),
        ...(Array.isArray(item.parameters) ? item.parameters : []),
      ]
        .map((parameter) => resolveLocalRef(document, parameter, []).value)
        .filter(isJsonObject)
        .filter((parameter) => parameter.in === 'header' && parameter.required === true)
        .map((parameter) => String(parameter.name).toLowerCase())
      for (const header of headers)
        if (!declared.includes(header.toLowerCase()))
          results.push({
            message: `webhook '${name}' does not document the required header parameter '${header}'`,
            path: [...path, 'parameters'],
          })
    }
    return results
  },
)

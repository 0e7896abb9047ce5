import { createRulesetFunction, type IFunctionResult } from '@stoplight/spectral-core'
import { isJsonObject, type JsonObject } from '../../scripts/lib/json.ts'
import { describeResponse, groupByDefinition, operationResponses } from './operation-responses.ts'

/** Options: the header every response documents. */
export interface HeaderOptions {
  header: string
}

/**
 * Spectral function (run on the unresolved document root): every response of every operation
 * documents the header under `headers`. A shared response is reported once, at the component.
 */
export const responsesDocumentHeader = createRulesetFunction<JsonObject, HeaderOptions>(
  {
    input: { type: 'object' },
    options: {
      type: 'object',
      properties: { header: { type: 'string' } },
      required: ['header'],
      additionalProperties: false,
    },
  },
  (document, { header }) => {
    const results: IFunctionResult[] = []
    for (const group of groupByDefinition(operationResponses(document))) {
      const response = group[0]?.response
      if (!response) continue
      const headers = isJsonObject(response.headers) ? response.headers : {}
      if (headers[header] !== undefined) continue
      results.push({
        message: `${describeResponse(group)} does not document the ${header} header`,
        path: [...(group[0]?.path ?? [])],
      })
    }
    return results
  },
)

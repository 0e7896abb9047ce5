// biome-ignore-all lint/suspicious/noThenProperty: Spectral rules (and JSON Schema if/then) have a `then` field
import type { RulesetDefinition } from '@stoplight/spectral-core'
import { pattern, schema, truthy } from '@stoplight/spectral-functions'
import { oas } from '@stoplight/spectral-rulesets'
import { errorResponsesUseErrorSchema } from './functions/error-responses-use-error-schema.ts'
import { propertyNamesMatch } from './functions/property-names-match.ts'
import { responsesDocumentHeader } from './functions/responses-document-header.ts'
import { webhooksDocumentSignature } from './functions/webhooks-document-signature.ts'
import { webhooksNameTheirEvent } from './functions/webhooks-name-their-event.ts'

/** JSONPath of every operation under `paths`. */
export const OPERATIONS = '$.paths[*][get,put,post,delete,options,head,patch,trace]'

/** JSONPath of every operation under the top-level `webhooks` (the events the API sends). */
export const WEBHOOK_OPERATIONS = '$.webhooks[*][get,put,post,delete,options,head,patch,trace]'

/** The Standard Webhooks headers every webhook request carries. */
export const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature']

/** The one error envelope every 4xx response uses. */
export const ERROR_SCHEMA_REF = '#/components/schemas/Error'

/**
 * Conventions of both documents (v1 and the mock control plane), on top of Spectral's
 * recommended OpenAPI rules. Rules that duplicate the project's own checks are off: the
 * OpenAPI 3.1 schema check and the Ajv example check are stricter and report better paths.
 */
export const commonRuleset: RulesetDefinition = {
  extends: [[oas as RulesetDefinition, 'recommended']],
  rules: {
    'oas3-schema': 'off',
    'oas3-valid-media-example': 'off',
    'oas3-valid-schema-example': 'off',
    // Replaced by the stricter rules below (camelCase operationId, exactly one tag).
    'operation-operationId': 'off',
    'operation-tags': 'off',
    'operation-id-camel-case': {
      description: 'Every operation (and webhook) has an operationId in camelCase (`listAgents`).',
      message: 'operationId must be present and camelCase: {{error}}',
      severity: 'error',
      given: [OPERATIONS, WEBHOOK_OPERATIONS],
      then: [
        { field: 'operationId', function: truthy },
        { field: 'operationId', function: pattern, functionOptions: { match: '^[a-z][a-zA-Z0-9]*$' } },
      ],
    },
    'operation-single-tag': {
      description: 'Every operation (and webhook) has exactly one tag, which groups it in the reference.',
      message: 'operation must have exactly one tag: {{error}}',
      severity: 'error',
      given: [OPERATIONS, WEBHOOK_OPERATIONS],
      then: {
        function: schema,
        functionOptions: {
          schema: {
            type: 'object',
            required: ['tags'],
            properties: { tags: { type: 'array', minItems: 1, maxItems: 1 } },
          },
        },
      },
    },
    'schema-properties-snake-case': {
      description: 'Property names of every schema are snake_case; data-keyed maps use additionalProperties.',
      message: '{{error}}',
      severity: 'error',
      given: '$',
      resolved: false,
      then: { function: propertyNamesMatch, functionOptions: { pattern: '^[a-z][a-z0-9_]*$' } },
    },
    'error-responses-use-error-schema': {
      description: `Every 4xx response's content uses ${ERROR_SCHEMA_REF}, directly or through allOf.`,
      message: '{{error}}',
      severity: 'error',
      given: '$',
      resolved: false,
      then: { function: errorResponsesUseErrorSchema, functionOptions: { errorRef: ERROR_SCHEMA_REF } },
    },
    'webhooks-document-signature': {
      description: `Every webhook documents the Standard Webhooks headers (${SIGNATURE_HEADERS.join(', ')}) as required header parameters.`,
      message: '{{error}}',
      severity: 'error',
      given: '$',
      resolved: false,
      then: { function: webhooksDocumentSignature, functionOptions: { headers: SIGNATURE_HEADERS } },
    },
    'webhooks-name-their-event': {
      description:
        "Every webhook takes a required JSON event envelope (id, object, type, created_at, data) whose 'type' is const the webhook's name.",
      message: '{{error}}',
      severity: 'error',
      given: '$',
      resolved: false,
      then: { function: webhooksNameTheirEvent },
    },
    'webhook-success-response': {
      description: "Every webhook documents the receiver's 2xx answer (what acknowledges the event).",
      message: 'webhook must document a 2xx response: {{error}}',
      severity: 'error',
      given: WEBHOOK_OPERATIONS,
      then: {
        field: 'responses',
        function: schema,
        functionOptions: {
          schema: { type: 'object', not: { propertyNames: { not: { pattern: '^2([0-9]{2}|XX)$' } } } },
        },
      },
    },
    'webhook-no-api-key': {
      description:
        'Webhooks carry no API key: each declares `security: []` (the signature authenticates it).',
      message: 'webhook must declare security: [] {{error}}',
      severity: 'error',
      given: WEBHOOK_OPERATIONS,
      then: {
        function: schema,
        functionOptions: {
          schema: { type: 'object', required: ['security'], properties: { security: { maxItems: 0 } } },
        },
      },
    },
    'responses-document-request-id': {
      description: "Every response of the API documents the Request-Id header (not a webhook receiver's).",
      message: '{{error}}',
      severity: 'error',
      given: '$',
      resolved: false,
      then: { function: responsesDocumentHeader, functionOptions: { header: 'Request-Id' } },
    },
  },
}

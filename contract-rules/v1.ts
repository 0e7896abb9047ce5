// biome-ignore-all lint/suspicious/noThenProperty: Spectral rules (and JSON Schema if/then) have a `then` field
import type { RulesetDefinition } from '@stoplight/spectral-core'
import { schema } from '@stoplight/spectral-functions'
import { commonRuleset, OPERATIONS } from './common.ts'

/** A scope: `resource:action`, both snake_case (`team_members:write`). */
export const SCOPE_PATTERN = '^[a-z][a-z_]*:[a-z][a-z_]*$'

/** Conventions of the platform contract (`openapi/v1.yaml`): authentication, rate limits, permissions. */
export const v1Ruleset: RulesetDefinition = {
  extends: [commonRuleset],
  rules: {
    'operation-required-permission': {
      description: 'Every operation declares x-required-permission: the scopes it needs (possibly none).',
      message: 'x-required-permission must be an array of scope strings: {{error}}',
      severity: 'error',
      given: OPERATIONS,
      then: {
        function: schema,
        functionOptions: {
          schema: {
            type: 'object',
            required: ['x-required-permission'],
            properties: {
              'x-required-permission': {
                type: 'array',
                uniqueItems: true,
                items: { type: 'string', pattern: SCOPE_PATTERN },
              },
            },
          },
        },
      },
    },
    'operation-401-429': {
      description: 'Every operation documents 401 (bad or missing key) and 429 (rate limited).',
      message: 'operation must document 401 and 429: {{error}}',
      severity: 'error',
      given: OPERATIONS,
      then: {
        field: 'responses',
        function: schema,
        functionOptions: { schema: { type: 'object', required: ['401', '429'] } },
      },
    },
    'permission-guarded-403': {
      description: 'Every operation with a non-empty x-required-permission documents 403.',
      message: 'operation requires permissions, so it must document 403: {{error}}',
      severity: 'error',
      given: OPERATIONS,
      then: {
        function: schema,
        functionOptions: {
          schema: {
            if: {
              required: ['x-required-permission'],
              properties: { 'x-required-permission': { type: 'array', minItems: 1 } },
            },
            then: { required: ['responses'], properties: { responses: { required: ['403'] } } },
          },
        },
      },
    },
  },
}

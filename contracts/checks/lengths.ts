import { resolveRef } from '../contract/load-contract.ts'
import { ensure, expectError, expectStatus, jsonObject } from './failure.ts'
import { agentBody, inviteBody } from './fixtures.ts'
import type { CheckContext, ContractCheck } from './types.ts'

/** A character outside the Basic Multilingual Plane: one code point, two UTF-16 units, four UTF-8 bytes. */
const WIDE = '\u{1F4DE}'

/** The bodies the check starts from, by operation: valid ones the run tags as its own. */
const BODIES: Record<string, (ctx: CheckContext) => Record<string, unknown>> = {
  createAgent: (ctx) => agentBody(ctx),
  inviteTeamMember: (ctx) => inviteBody(ctx),
}

/** The free-text fields of an operation's request body with a maximum length (no pattern, format or enum). */
function boundedTexts(ctx: CheckContext, operationId: string): { name: string; maxLength: number }[] {
  const body = ctx.contract.operation(operationId).requestBody
  if (!body) return []
  const schema = resolveRef<{ properties?: Record<string, unknown> }>(ctx.contract.document, body.schema)
  return Object.entries(schema.properties ?? {}).flatMap(([name, raw]) => {
    const property = resolveRef<Record<string, unknown>>(ctx.contract.document, raw)
    const types = [property.type].flat()
    const free = !property.pattern && !property.format && !property.enum
    return types.includes('string') && free && typeof property.maxLength === 'number'
      ? [{ name, maxLength: property.maxLength }]
      : []
  })
}

/**
 * The contract's lengths are JSON Schema's (`maxLength`: draft 2020-12, section 6.3.1), counted in characters
 * (code points), not in the UTF-16 units a JavaScript string's `length` counts nor in bytes: a field of its
 * maximum length in characters outside the Basic Multilingual Plane is accepted and stored as sent, one more
 * character is refused (422 `max_length` naming the field).
 */
export const lengthsInCharactersCheck: ContractCheck = {
  id: 'bad-input/lengths-in-characters',
  area: 'bad-input',
  group: 'Bodies',
  title:
    'counts the length of free text in characters, not UTF-16 units or bytes: each bounded field of a create at its maximum in characters outside the BMP is accepted as sent, one more refused with 422',
  needs: ['write'],
  async run(ctx) {
    for (const [operationId, base] of Object.entries(BODIES)) {
      const operation = ctx.contract.operation(operationId)
      for (const field of boundedTexts(ctx, operationId)) {
        const call = (value: string) =>
          ctx.call({
            method: 'POST',
            path: operation.path,
            json: { ...base(ctx), [field.name]: value },
            operationId,
          })
        const longest = WIDE.repeat(field.maxLength)
        const accepted = await call(longest)
        const why = `for ${operation.path} with ${field.name} of ${field.maxLength} characters outside the BMP (${2 * field.maxLength} UTF-16 units)`
        expectStatus(accepted, 201, why)
        ensure(
          jsonObject(accepted)[field.name] === longest,
          `${field.name} as sent`,
          `${[...String(jsonObject(accepted)[field.name])].length} characters`,
          accepted,
        )
        expectError(
          await call(WIDE.repeat(field.maxLength + 1)),
          422,
          { type: 'validation_error', code: 'validation_failed', param: field.name },
          `for ${operation.path} with ${field.name} of ${field.maxLength + 1} characters`,
        )
      }
    }
  },
}

import type { ValidateFunction } from 'ajv'
import { jsonSchemaOf, type Mode, type OpenApiDocument, type OperationObject } from './document.ts'

/** A validator compiled once per key and mode (`createValidators`' cache). */
type Compiled = (key: string, mode: Mode, schemaOf: () => unknown) => ValidateFunction | null

/**
 * Answers checked against the contract: the mock's own response check (`checkResponses`, contract-drift.ts) and
 * the check of scenarios' injected answers. Off in the contract run, where the suite, not the mock, must notice
 * a wrong answer; part of `Validators`.
 */
export function answerChecks(document: OpenApiDocument, compiled: Compiled) {
  return {
    /** Human-readable mismatches between a response and the contract (empty when it conforms). */
    response(operationId: string, operation: OperationObject, status: number, body: unknown): string[] {
      const responses = operation.responses ?? {}
      const documented = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default
      if (!documented) return [`status ${status} is not documented for ${operationId}`]
      const validate = compiled(`response:${operationId}:${status}`, 'check', () =>
        jsonSchemaOf(document, documented),
      )
      if (!validate || validate(body)) return []
      return (validate.errors ?? []).map(
        (e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
      )
    },

    /** Validates a value against a named component schema (`#/components/schemas/<name>`). */
    schema(name: string, value: unknown): string[] {
      const validate = compiled(`schema:${name}`, 'check', () => ({ $ref: `#/components/schemas/${name}` }))
      if (!validate || validate(value)) return []
      return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`)
    },
  }
}

import type { ValidateFunction } from 'ajv'
import { createContractAjv } from '../../../openapi/contract-ajv.ts'
import { mockControlDocument } from '../../../openapi/generated/mock-control.document.ts'
import { v1Document } from '../../../openapi/generated/v1.document.ts'

/** The `Error` schema of a contract document, compiled on its own (not with the engine's validators). */
function compileError(id: string, document: { components?: unknown }): ValidateFunction {
  return createContractAjv(document, id).compile({ $ref: '#/components/schemas/Error' })
}

const v1Error = compileError('urn:test:v1', v1Document)
/** A v1 422 narrows the envelope further: `errors[]` and `request_id` are required. */
const v1Unprocessable = createContractAjv(v1Document, 'urn:test:v1-422').compile({
  $ref: '#/components/responses/UnprocessableEntity/content/application~1json/schema',
})
const controlError = compileError('urn:test:control', mockControlDocument)

function header(headers: Headers | Record<string, string | string[] | undefined>, name: string) {
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/**
 * What is wrong with an error response, against the contract: the body must match the `Error` schema
 * of the v1 contract (or of the control plane's for `/_mock/` paths, which adds its own codes), a v1 422
 * that of the contract's `UnprocessableEntity` response (with `errors[]`), a v1 401 has no `request_id`, and any other `request_id` repeats the `Request-Id` header.
 */
export function errorProblems(
  path: string,
  status: number,
  headers: Headers | Record<string, string | string[] | undefined>,
  body: unknown,
): string[] {
  const isControl = path === '/_mock' || path.startsWith('/_mock/')
  const validate = isControl ? controlError : v1Error
  if (!validate(body))
    return (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}`)
  if (status === 422 && !isControl && !v1Unprocessable(body))
    return (v1Unprocessable.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''} (422)`)
  const error = (body as { error: { request_id?: string } }).error
  if (status === 401 && !isControl)
    return error.request_id === undefined ? [] : ['a 401 body carries request_id']
  if (status === 401 && error.request_id === undefined) return []
  const requestId = header(headers, 'request-id')
  if (error.request_id !== requestId)
    return [`error.request_id ${String(error.request_id)} differs from Request-Id ${String(requestId)}`]
  return []
}

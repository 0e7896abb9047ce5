import type { Contract } from '../contract/contract.ts'
import { resolveRef } from '../contract/load-contract.ts'
import type { ContractOperation } from '../contract/operations.ts'
import { ACCEPTS, encoded, OVERRIDES } from '../http/client-forms.ts'

/**
 * Ways to write a request that clients, proxies and frameworks send, each with an answer the contract or the
 * standards it cites decide: the same answer as the plain request (the scheme's letter case, spaces after it,
 * an Accept that takes JSON, percent-encoded IDs, instants in another offset or with lower-case letters), or a
 * refusal (an enum value in capitals, an unknown query parameter, a parameter with no value, a method-override
 * header on a path whose method it would change). Exploration sends the same form to the target and to the
 * model, whose answer decides: no form is compared here.
 */

/** A request before it is sent: its path without the query, the query's pairs, its headers (lower case). */
export interface RequestParts {
  method: string
  path: string
  query: [string, string][]
  headers: Record<string, string>
}

interface RequestForm {
  what: string
  /** Whether this form changes the request at all (a form that changes nothing is not sent as one). */
  applies(parts: RequestParts, enums: ReadonlySet<string>): boolean
  apply(parts: RequestParts, enums: ReadonlySet<string>): RequestParts
}

const INSTANT = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(\.\d+)?Z$/

const withAuthorization = (parts: RequestParts, rewrite: (token: string) => string): RequestParts => {
  const token = /^Bearer (.*)$/.exec(parts.headers.authorization ?? '')?.[1]
  return token === undefined
    ? parts
    : { ...parts, headers: { ...parts.headers, authorization: rewrite(token) } }
}
const hasBearer = (parts: RequestParts) => /^Bearer /.test(parts.headers.authorization ?? '')

const mapQuery = (parts: RequestParts, rewrite: (name: string, value: string) => string): RequestParts => ({
  ...parts,
  query: parts.query.map(([name, value]): [string, string] => [name, rewrite(name, value)]),
})
const hasInstant = (parts: RequestParts) => parts.query.some(([, value]) => INSTANT.test(value))

/** The same instant at UTC+05:30 (RFC 3339 section 5.6: an offset names the same instant). */
function atOffset(value: string): string {
  const match = INSTANT.exec(value)
  if (!match) return value
  const shifted = new Date(Date.parse(value) + 330 * 60_000).toISOString()
  return `${shifted.slice(0, 19)}${match[3] ?? ''}+05:30`
}

/** The path's segments that are IDs (a prefix, `_`, more), percent-encoded as `encoded` writes them. */
const encodePath = (path: string) =>
  path
    .split('/')
    .map((segment) => (/^[a-z]+_[A-Za-z0-9]+$/.test(segment) ? encoded(segment) : segment))
    .join('/')

const FORMS: readonly RequestForm[] = [
  {
    what: 'the scheme in lower case (bearer)',
    applies: hasBearer,
    apply: (parts) => withAuthorization(parts, (token) => `bearer ${token}`),
  },
  {
    what: 'the scheme in capitals (BEARER)',
    applies: hasBearer,
    apply: (parts) => withAuthorization(parts, (token) => `BEARER ${token}`),
  },
  {
    what: 'three spaces after Bearer',
    applies: hasBearer,
    apply: (parts) => withAuthorization(parts, (token) => `Bearer   ${token}`),
  },
  // Accept lists that take JSON, as clients send them; a browser's navigation and a client that prefers XML: the
  // answer is JSON all the same ("JSON only").
  ...[
    ...ACCEPTS,
    'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    'application/xml, application/json;q=0.9',
  ].map(
    (accept): RequestForm => ({
      what: `Accept: ${accept}`,
      applies: () => true,
      apply: (parts) => ({ ...parts, headers: { ...parts.headers, accept } }),
    }),
  ),
  {
    // A trace ID the client sends is no Request-Id of the platform's ("Unique ID of this request": req_...).
    what: 'X-Request-Id and Request-Id sent by the client',
    applies: () => true,
    apply: (parts) => ({
      ...parts,
      headers: { ...parts.headers, 'x-request-id': 'trace-0client0', 'request-id': 'trace-0client0' },
    }),
  },
  {
    what: 'the query parameter names in capitals',
    applies: (parts) => parts.query.some(([name]) => /[a-z]/.test(name)),
    apply: (parts) => ({
      ...parts,
      query: parts.query.map(([name, value]): [string, string] => [name.toUpperCase(), value]),
    }),
  },
  {
    what: `${OVERRIDES[0]}: DELETE`,
    applies: (parts) => parts.method === 'POST' || parts.method === 'PATCH',
    apply: (parts) => ({ ...parts, headers: { ...parts.headers, [OVERRIDES[0]]: 'DELETE' } }),
  },
  {
    what: 'the IDs of the path percent-encoded (%5F for _)',
    applies: (parts) => encodePath(parts.path) !== parts.path,
    apply: (parts) => ({ ...parts, path: encodePath(parts.path) }),
  },
  {
    what: 'the enum values of the query in capitals',
    applies: (parts, enums) => parts.query.some(([name, value]) => enums.has(name) && /[a-z]/.test(value)),
    apply: (parts, enums) =>
      mapQuery(parts, (name, value) => (enums.has(name) ? value.toUpperCase() : value)),
  },
  {
    what: 'an unknown query parameter (explore_unknown=1)',
    applies: () => true,
    apply: (parts) => ({ ...parts, query: [...parts.query, ['explore_unknown', '1']] }),
  },
  {
    what: 'the first query parameter with no value',
    applies: (parts) => parts.query.length > 0,
    apply: (parts) => ({
      ...parts,
      query: parts.query.map(([name, value], i): [string, string] => [name, i === 0 ? '' : value]),
    }),
  },
  {
    what: 'the instants of the query with lower-case t and z',
    applies: hasInstant,
    apply: (parts) => mapQuery(parts, (_, value) => (INSTANT.test(value) ? value.toLowerCase() : value)),
  },
  {
    what: 'the instants of the query at offset +05:30',
    applies: hasInstant,
    apply: (parts) => mapQuery(parts, (_, value) => atOffset(value)),
  },
  {
    what: 'the instants of the query with milliseconds',
    applies: (parts) => parts.query.some(([, value]) => INSTANT.test(value) && !value.includes('.')),
    apply: (parts) =>
      mapQuery(parts, (_, value) => (INSTANT.test(value) ? value.replace(/Z$/, '.000Z') : value)),
  },
  {
    what: 'the query parameters in reverse order',
    applies: (parts) => parts.query.length > 1,
    apply: (parts) => ({ ...parts, query: [...parts.query].reverse() }),
  },
  {
    // The contract's POSTs take an Idempotency-Key; on another method it is a header the operation does not
    // read (a client that adds one to every write): it changes nothing, however often one key comes with other
    // bodies.
    what: 'an Idempotency-Key on a method that takes none (explore-elsewhere, the same on every such request)',
    applies: (parts) =>
      !['POST', 'OPTIONS'].includes(parts.method) && parts.headers['idempotency-key'] === undefined,
    apply: (parts) => ({ ...parts, headers: { ...parts.headers, 'idempotency-key': 'explore-elsewhere' } }),
  },
]

/** The form that sends an Idempotency-Key on a method that takes none. */
export const IDEMPOTENCY_ELSEWHERE_FORM = FORMS.length

/** How many forms there are besides the plain one (form 0). */
export const REQUEST_FORM_COUNT = FORMS.length

/** The names of an operation's query parameters whose schema is an enum of words. */
export function enumParameters(contract: Contract, operation: ContractOperation): ReadonlySet<string> {
  return new Set(
    operation.parameters
      .filter((p) => p.in === 'query')
      .filter((p) =>
        (resolveRef<{ enum?: unknown[] }>(contract.document, p.schema).enum ?? []).some(
          (value) => typeof value === 'string' && /[a-z]/.test(value),
        ),
      )
      .map((p) => p.name),
  )
}

/**
 * The request written in form `form` (1 to `REQUEST_FORM_COUNT`; 0 the plain way) and what the form is, or the
 * request as it was (`what` undefined) when the form would change nothing of it.
 */
export function spellRequest(
  parts: RequestParts,
  form: number,
  enums: ReadonlySet<string>,
): { parts: RequestParts; what?: string } {
  const chosen = form > 0 ? FORMS[(form - 1) % FORMS.length] : undefined
  if (!chosen?.applies(parts, enums)) return { parts }
  return { parts: chosen.apply(parts, enums), what: chosen.what }
}

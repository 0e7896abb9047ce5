import { parseChallenge, resolveLocation } from '../checks/formats.ts'
import type { Contract } from '../contract/contract.ts'
import type { ContractOperation, ContractResponse } from '../contract/operations.ts'
import { parseRateLimit } from '../http/rate-limit-headers.ts'
import type { IdMap } from './id-map.ts'
import { isObject } from './is-object.ts'
import { type LeftOpen, leftOpen, type Treatment } from './left-open.ts'
import {
  firstSentence,
  idPrefixes,
  lookup,
  nonNullBranch,
  resolveNode,
  type SchemaNode,
  typesOf,
} from './schema-node.ts'

/** An answer as compared: status, lower-case headers, parsed JSON body (undefined when none). */
export interface Answer {
  status: number
  headers: Record<string, string>
  body: unknown
}

/** One way the target's answer differs from the model's, and what in the contract decides it. */
export interface Difference {
  /** Where: `status`, `body.data[0].updated_at`, `header RateLimit`. */
  at: string
  target: string
  model: string
  /** The schema place or response of the contract, with its sentence. */
  decidedBy: string
}

export interface CompareInput {
  contract: Contract
  /** The operation the request was for; undefined for a path the contract does not know. */
  operation?: ContractOperation
  /** The operations of the request's path (for an undocumented method: the 405 they share). */
  pathOperations?: readonly ContractOperation[]
  /** A HEAD request: no body to compare. */
  head?: boolean
  /** A CORS preflight (`OPTIONS`): what decides is the contract's CORS convention. */
  preflight?: boolean
  /** The request carried an `Origin` (a browser's): the answer's CORS headers are compared too. */
  cors?: boolean
  target: Answer
  model: Answer
  /** The URLs each side was sent, against which a relative `Location` resolves. */
  urls: { target: string; model: string }
  ids: IdMap
}

/** What decides a preflight's answer: the contract's conventions (info.description, CORS). */
const PREFLIGHT_SENTENCE =
  'the contract, Conventions, CORS: "The standalone mock answers CORS preflights (`OPTIONS`, 204) for every documented path"'

/** What decides an answer's CORS headers: the contract's conventions (info.description, CORS). */
const CORS_SENTENCE =
  'the contract, Conventions, CORS: "it allows the request headers `Authorization, Content-Type, Idempotency-Key` and exposes `Request-Id, RateLimit, RateLimit-Policy, Retry-After`"'

/** The CORS headers compared when a request carries an `Origin`, lists of names compared as sets of tokens. */
const CORS_HEADERS = ['access-control-allow-origin', 'access-control-expose-headers']
const PREFLIGHT_HEADERS = ['access-control-allow-methods', 'access-control-allow-headers']

/** At most this many differences per answer are told (the first ones in document order). */
const MAX_DIFFERENCES = 6

const show = (value: unknown): string => {
  if (value === undefined) return '(absent)'
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value)
  return text.length > 160 ? `${text.slice(0, 157)}...` : text
}

/** The documented response of an operation for a status: the exact code, then `4XX`-style ranges, then `default`. */
export function documentedResponse(
  operation: ContractOperation | undefined,
  status: number,
): ContractResponse | undefined {
  if (!operation) return undefined
  const responses = operation.responses
  return responses.get(String(status)) ?? responses.get(`${String(status)[0]}XX`) ?? responses.get('default')
}

/** Where the contract describes an operation's answer with a status, and its first sentence. */
export function responseSentence(
  contract: Contract,
  operation: ContractOperation | undefined,
  status: number,
): string {
  if (!operation) return `the contract's paths (a path it does not define answers 404 route_not_found)`
  const raw = (
    contract.document.paths[operation.path] as Record<string, { responses?: Record<string, unknown> }>
  )[operation.method]?.responses
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => raw?.[k] !== undefined)
  if (!key) return `${operation.operationId}: status ${status} is not documented`
  const value = raw?.[key] as { $ref?: string; description?: string }
  const pointer =
    value.$ref ?? `#/paths/${operation.path.replace(/\//g, '~1')}/${operation.method}/responses/${key}`
  const description = value.$ref ? lookup(contract.document, value.$ref).description : value.description
  const sentence = firstSentence(description)
  return `${operation.operationId} ${key}: ${pointer}${sentence ? ` "${sentence}"` : ''}`
}

/** The headers the contract calls unique (`Request-Id`: "Unique ID of this request"): no two answers share a value. */
export function uniqueHeaders(contract: Contract): string[] {
  const headers = (contract.document.components?.headers ?? {}) as Record<string, { description?: string }>
  return Object.entries(headers)
    .filter(([, header]) => /^unique\b/i.test(header.description ?? ''))
    .map(([name]) => name.toLowerCase())
}

export function headerSentence(contract: Contract, name: string): string {
  const headers = (contract.document.components?.headers ?? {}) as Record<string, { description?: string }>
  const found = Object.keys(headers).find((key) => key.toLowerCase() === name)
  if (!found) return `header ${name}`
  const sentence = firstSentence(headers[found]?.description)
  return `#/components/headers/${found}${sentence ? ` "${sentence}"` : ''}`
}

/**
 * Compares the target's answer with the model's as the contract reads them: the status; then, for the
 * documented response of that status, every documented header and every field of the body, walking the
 * response's schema (IDs through the learnt mapping, `date-time` fields as instants, arrays in order unless
 * a set), except what `LEFT_OPEN` (left-open.ts) leaves open. Returns the differences, none when they agree.
 */
export function compareAnswers(input: CompareInput): Difference[] {
  const { contract, target, model } = input
  const operation =
    input.operation ?? (target.status === 405 || model.status === 405 ? input.pathOperations?.[0] : undefined)
  const out: Difference[] = []
  if (target.status === model.status && (input.cors || input.preflight)) compareCors(input, out)
  if (target.status !== model.status) {
    out.push({
      at: 'status',
      target: statusLine(target),
      model: statusLine(model),
      decidedBy: input.preflight ? PREFLIGHT_SENTENCE : responseSentence(contract, operation, model.status),
    })
    return out
  }
  const documented = documentedResponse(operation, model.status)
  if (!documented) {
    // A path the contract does not define: its routing convention decides the error's type and code.
    if (!operation) compareErrorCodes(input, out)
    return out
  }
  compareHeaders(input, documented, out)
  if (!input.head && documented.schema !== undefined) {
    const root = resolveNode(contract.document, documented.schema, responsePointer(operation, documented))
    walk(input, root, 'body', target.body, model.body, out)
  }
  return out.slice(0, MAX_DIFFERENCES)
}

/** A list of header tokens (`Authorization, Content-Type`) as a set: case and order aside. */
const tokens = (value: string) =>
  value
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter(Boolean)
    .sort()
    .join(', ')

function compareCors(input: CompareInput, out: Difference[]): void {
  const names = input.preflight ? [...CORS_HEADERS.slice(0, 1), ...PREFLIGHT_HEADERS] : CORS_HEADERS
  for (const name of names) {
    const [t, m] = [input.target.headers[name], input.model.headers[name]]
    if (t === undefined && m === undefined) continue
    const same =
      t !== undefined &&
      m !== undefined &&
      (name === 'access-control-allow-origin' ? t === m : tokens(t) === tokens(m))
    if (!same)
      out.push({
        at: `header ${name}`,
        target: show(t),
        model: show(m),
        decidedBy: `${CORS_SENTENCE}${t === undefined || m === undefined ? ' (present on one side only)' : ''}`,
      })
  }
}

function compareErrorCodes(input: CompareInput, out: Difference[]): void {
  const decidedBy = responseSentence(input.contract, undefined, input.model.status)
  out.push(...errorCodeDifferences(input.target.body, input.model.body, decidedBy))
}

/**
 * Where two error bodies differ in what implementations must agree on, `error.type` and `error.code` (a message is
 * each one's own); nothing when the model's body holds no error.
 */
export function errorCodeDifferences(target: unknown, model: unknown, decidedBy: string): Difference[] {
  const errorOf = (body: unknown) => (isObject(body) && isObject(body.error) ? body.error : undefined)
  const [t, m] = [errorOf(target), errorOf(model)]
  if (!m) return []
  return ['type', 'code']
    .filter((field) => t?.[field] !== m[field])
    .map((field) => ({
      at: `body.error.${field}`,
      target: show(t?.[field]),
      model: show(m[field]),
      decidedBy,
    }))
}

function responsePointer(operation: ContractOperation | undefined, response: ContractResponse): string {
  if (!operation) return '#'
  return `#/paths/${operation.path.replace(/\//g, '~1')}/${operation.method}/responses/${response.status}`
}

function statusLine(answer: Answer): string {
  const error = (answer.body as { error?: { type?: unknown; code?: unknown } } | undefined)?.error
  return error && typeof error === 'object'
    ? `${answer.status} ${String(error.type)}/${String(error.code)}`
    : String(answer.status)
}

function compareHeaders(input: CompareInput, response: ContractResponse, out: Difference[]): void {
  const { target, model, contract } = input
  for (const name of Object.keys(response.headers)) {
    const open = leftOpen(`header ${name}`)
    if (open?.treatment === 'skip') continue
    const t = target.headers[name]
    const m = model.headers[name]
    if (t === undefined && m === undefined) continue
    const problem =
      t === undefined || m === undefined
        ? 'present on one side only'
        : headerProblem(open?.treatment, t, m, input)
    if (problem !== undefined)
      out.push({
        at: `header ${name}`,
        target: show(t),
        model: show(m),
        decidedBy: `${headerSentence(contract, name)}${problem ? ` (${problem})` : ''}${open ? ` [compared as: ${open.treatment}]` : ''}`,
      })
  }
}

/** Undefined when the header values agree as `treatment` reads them; else a few words (possibly empty). */
function headerProblem(
  treatment: Treatment | undefined,
  t: string,
  m: string,
  input: CompareInput,
): string | undefined {
  switch (treatment) {
    case 'challenge':
      return parseChallenge(t)?.scheme === parseChallenge(m)?.scheme ? undefined : 'another scheme'
    case 'reference': {
      const a = resolveLocation(t, input.urls.target)?.pathname.split('/') ?? []
      const b = resolveLocation(m, input.urls.model)?.pathname.split('/') ?? []
      if (a.length < 2 || a.at(-2) !== b.at(-2)) return 'another collection'
      return input.ids.match(a.at(-1) ?? '', b.at(-1) ?? '')
    }
    case 'rate-limit': {
      const a = parseRateLimit(t)
      const b = parseRateLimit(m)
      if (!a.ok || !b.ok) return a.ok ? undefined : a.error
      for (const want of b.value) {
        const got = a.value.find((w) => w.name === want.name)
        if (!got) return `no "${want.name}" window`
        if (got.remaining !== want.remaining)
          return `"${want.name}" r=${got.remaining}, not ${want.remaining}`
        if (Math.abs(got.reset - want.reset) > 1)
          return `"${want.name}" t=${got.reset}, not ${want.reset} (±1)`
      }
      return undefined
    }
    case 'within-a-second':
      return Math.abs(Number(t) - Number(m)) <= 1 ? undefined : 'more than a second apart'
    case 'any-order': {
      const set = (v: string) =>
        v
          .split(',')
          .map((s) => s.trim())
          .sort()
          .join(', ')
      return set(t) === set(m) ? undefined : ''
    }
    default:
      return input.ids.mapText(t) === m ? undefined : ''
  }
}

function placeOf(node: SchemaNode, open?: { treatment: Treatment }): string {
  const sentence = firstSentence(node.schema.description)
  return `${node.pointer}${sentence ? ` "${sentence}"` : ''}${open ? ` [compared as: ${open.treatment}]` : ''}`
}

function walk(
  input: CompareInput,
  node: SchemaNode,
  path: string,
  t: unknown,
  m: unknown,
  out: Difference[],
): void {
  if (out.length >= MAX_DIFFERENCES) return
  const { contract, ids } = input
  const document = contract.document
  const open = leftOpen(node.place) ?? leftOpen(node.pointer)
  const differ = (detail = '') =>
    out.push({
      at: path,
      target: show(t),
      model: show(m),
      decidedBy: `${placeOf(node, open)}${detail ? ` (${detail})` : ''}`,
    })
  if (open?.treatment === 'skip') return
  const fixed = open?.treatment === 'fixed-values' && (open.fixed ?? []).includes(m)
  if (open?.treatment === 'presence' || (open?.treatment === 'fixed-values' && !fixed)) {
    if ((t === undefined || t === null) !== (m === undefined || m === null)) differ()
    return
  }
  if (t === undefined || m === undefined) {
    if (t !== m) differ(t === undefined ? 'absent from the target' : 'absent from the model')
    return
  }
  if (t === null || m === null) {
    if (t !== m) differ()
    return
  }
  const branch = nonNullBranch(document, node)
  if (branch) {
    walk(
      input,
      { ...branch, pointer: branch.schema.properties ? branch.pointer : node.pointer, place: node.place },
      path,
      t,
      m,
      out,
    )
    return
  }
  const { schema } = node
  if (typeof t === 'string' && typeof m === 'string') {
    if (schema.format === 'date-time') {
      const [a, b] = [Date.parse(t), Date.parse(m)]
      if (Number.isNaN(a) || Math.floor(a / 1000) !== Math.floor(b / 1000))
        differ('compared as instants, to the second')
      return
    }
    if (idPrefixes(schema)) {
      const problem = ids.match(t, m)
      if (problem) differ(problem)
      return
    }
    if (ids.mapText(t) !== m) differ()
    return
  }
  if (typeof t === 'number' && typeof m === 'number') {
    if (open?.treatment === 'within-a-second' ? Math.abs(t - m) > 1 : t !== m) differ()
    return
  }
  if (Array.isArray(t) && Array.isArray(m)) {
    const items = resolveNode(document, schema.items, `${node.pointer}/items`)
    if (open?.treatment === 'any-order' || open?.treatment === 'ordered-by' || schema.uniqueItems === true) {
      unordered(input, items, path, t, m, out, differ)
      const wrong = open?.order ? outOfOrder(t, open.order) : undefined
      if (wrong) differ(wrong)
      return
    }
    for (let i = 0; i < Math.min(t.length, m.length); i++)
      walk(input, items, `${path}[${i}]`, t[i], m[i], out)
    if (t.length !== m.length) differ(`${t.length} items, the model ${m.length}`)
    return
  }
  if (isObject(t) && isObject(m)) {
    const properties = (schema.properties ?? {}) as Record<string, unknown>
    const extra = isObject(schema.additionalProperties) ? schema.additionalProperties : {}
    for (const name of new Set([...Object.keys(properties), ...Object.keys(t), ...Object.keys(m)])) {
      const child =
        name in properties
          ? resolveNode(document, properties[name], `${node.pointer}/properties/${name}`)
          : resolveNode(document, extra, `${node.pointer}/additionalProperties`)
      walk(input, child, `${path}.${name}`, t[name], m[name], out)
    }
    return
  }
  if (
    typesOf(document, node).length === 0 ||
    typeof t !== typeof m ||
    Array.isArray(t) !== Array.isArray(m)
  ) {
    if (JSON.stringify(t) !== JSON.stringify(m)) differ()
    return
  }
  if (t !== m) differ()
}

/** Where the target's array breaks the order `order` names (its own values: numbers by value, text by code point). */
function outOfOrder(items: unknown[], order: NonNullable<LeftOpen['order']>): string | undefined {
  const at = (item: unknown, field: string) =>
    field.split('.').reduce<unknown>((v, name) => (isObject(v) ? v[name] : undefined), item)
  const compare = (a: unknown, b: unknown) => {
    for (const { field, descending } of order) {
      const [x, y] = [at(a, field), at(b, field)]
      if (x === y) continue
      const before = typeof x === 'number' && typeof y === 'number' ? x < y : String(x) < String(y)
      return (before ? -1 : 1) * (descending ? -1 : 1)
    }
    return 0
  }
  for (let i = 1; i < items.length; i++)
    if (compare(items[i - 1], items[i]) > 0)
      return `items ${i - 1} and ${i} of the target's answer are not ordered by ${order.map((o) => `${o.field} ${o.descending ? 'descending' : 'ascending'}`).join(', then ')}`
  return undefined
}

/** Compares two arrays as sets: items with an `id` by the object they name, others by what is compared of them. */
function unordered(
  input: CompareInput,
  items: SchemaNode,
  path: string,
  t: unknown[],
  m: unknown[],
  out: Difference[],
  differ: (detail?: string) => void,
): void {
  const id = (v: unknown) => (isObject(v) && typeof v.id === 'string' ? v.id : undefined)
  if (t.every((v) => id(v) !== undefined) && m.every((v) => id(v) !== undefined)) {
    const byId = new Map(m.map((v) => [id(v) as string, v]))
    for (const [i, item] of t.entries()) {
      const tid = id(item) as string
      const mid = input.ids.toModel(tid) ?? (byId.has(tid) ? tid : undefined)
      const found = mid === undefined ? undefined : byId.get(mid)
      if (!found) {
        differ(`item ${tid} has no counterpart`)
        return
      }
      walk(input, items, `${path}[${i}]`, item, found, out)
    }
    if (t.length !== m.length) differ(`${t.length} items, the model ${m.length}`)
    return
  }
  const key = (v: unknown, side: 'target' | 'model') => JSON.stringify(project(input, items, v, side))
  const left = t.map((v) => key(v, 'target')).sort()
  const right = m.map((v) => key(v, 'model')).sort()
  if (left.join('\n') !== right.join('\n')) differ('compared as a set')
}

/** What is compared of a value, as plain JSON (skipped fields left out, instants to the second, IDs mapped). */
function project(input: CompareInput, node: SchemaNode, value: unknown, side: 'target' | 'model'): unknown {
  const document = input.contract.document
  const open = leftOpen(node.place) ?? leftOpen(node.pointer)
  if (open?.treatment === 'skip') return undefined
  if (value === null || value === undefined) return value ?? null
  if (open?.treatment === 'presence') return true
  const branch = nonNullBranch(document, node)
  if (branch) return project(input, branch, value, side)
  const { schema } = node
  if (typeof value === 'string') {
    if (schema.format === 'date-time') return Math.floor(Date.parse(value) / 1000)
    return side === 'target' ? input.ids.mapText(value) : value
  }
  if (Array.isArray(value)) {
    const items = resolveNode(document, schema.items, `${node.pointer}/items`)
    return value.map((v) => project(input, items, v, side))
  }
  if (isObject(value)) {
    const properties = (schema.properties ?? {}) as Record<string, unknown>
    const extra = isObject(schema.additionalProperties) ? schema.additionalProperties : {}
    const out: Record<string, unknown> = {}
    for (const name of Object.keys(value).sort()) {
      const child =
        name in properties
          ? resolveNode(document, properties[name], `${node.pointer}/properties/${name}`)
          : resolveNode(document, extra, `${node.pointer}/additionalProperties`)
      const projected = project(input, child, value[name], side)
      if (projected !== undefined) out[name] = projected
    }
    return out
  }
  return value
}

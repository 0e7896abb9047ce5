import { bodyBreakages, parameterBreakages } from '../contract/breakages.ts'
import type { ContractOperation } from '../contract/operations.ts'
import { fillPath } from '../contract/operations.ts'
import type { Exchange } from '../http/exchange.ts'
import { ensure, expectError, expectStatus, inOrder, jsonObject } from './failure.ts'
import { agentBody, CALL_LOG_READS, createAgent, inviteBody, inviteMember, UNKNOWN_IDS } from './fixtures.ts'
import type { CheckContext, ContractCheck, Need } from './types.ts'

/** Where a body operation is exercised: the path of an object the run owns and a valid body to break. */
interface BodyTarget {
  needs: Need[]
  prepare(ctx: CheckContext): Promise<{ path: string; base: Record<string, unknown> }>
}

const BODY_TARGETS: Record<string, BodyTarget> = {
  createAgent: { needs: ['write'], prepare: async (ctx) => ({ path: '/agents', base: agentBody(ctx) }) },
  updateAgent: {
    needs: ['write'],
    prepare: async (ctx) => ({ path: `/agents/${String((await createAgent(ctx)).agent.id)}`, base: {} }),
  },
  inviteTeamMember: {
    needs: ['write'],
    prepare: async (ctx) => ({ path: '/team-members', base: inviteBody(ctx) }),
  },
  updateTeamMember: {
    needs: ['write'],
    prepare: async (ctx) => ({
      path: `/team-members/${String((await inviteMember(ctx)).member.id)}`,
      base: { role: 'viewer' },
    }),
  },
  updateIntegration: {
    needs: ['write', 'own-account'],
    prepare: async () => ({ path: '/integrations/webhook', base: {} }),
  },
}

/** A 422 naming the field: the envelope, `validation_failed`, and an `errors[]` entry for the param. */
function expect422(exchange: Exchange, param: string, codes: readonly string[], why: string): void {
  expectError(exchange, 422, { type: 'validation_error', code: 'validation_failed' }, why)
  const errors = (jsonObject(exchange).error as { errors?: { param?: string; code?: string }[] }).errors ?? []
  const entry = errors.find((e) => e.param === param)
  ensure(
    entry,
    `an errors[] entry for ${JSON.stringify(param)} ${why}`,
    JSON.stringify(errors.map((e) => e.param)),
    exchange,
  )
  ensure(
    codes.includes(String(entry?.code)),
    `errors[].code ${codes.join(' or ')} for ${param}`,
    String(entry?.code),
    exchange,
  )
}

/** Broken bodies a schema check sends at the same time. */
const BREAKAGES_AT_ONCE = 6

function schemaCheck(operation: ContractOperation, target: BodyTarget): ContractCheck {
  return {
    id: `bad-input/${operation.operationId}/schema`,
    area: 'bad-input',
    group: operation.operationId,
    title: 'answers 422 naming the field for bodies that break the schema one field at a time',
    needs: target.needs,
    async run(ctx) {
      const { path, base } = await target.prepare(ctx)
      const schema = operation.requestBody?.schema
      const method = operation.method.toUpperCase()
      if (Object.keys(base).length === 0) {
        const empty = await ctx.call({ method, path, json: {}, operationId: operation.operationId })
        expect422(empty, '', ['min_properties'], 'for an empty body {}')
      }
      // Each broken body is refused on its own (nothing changes): sent a few at a time, judged in order.
      const breakages = bodyBreakages(ctx.contract.document, schema, base)
      for (let at = 0; at < breakages.length; at += BREAKAGES_AT_ONCE) {
        const batch = breakages.slice(at, at + BREAKAGES_AT_ONCE)
        const answers = await inOrder(
          batch.map((breakage) =>
            ctx.call({ method, path, json: breakage.body, operationId: operation.operationId }),
          ),
        )
        for (const [i, breakage] of batch.entries())
          expect422(
            answers[i] as Exchange,
            breakage.param,
            breakage.codes,
            `for a body with ${breakage.description}`,
          )
      }
    },
  }
}

/** The malformed bodies of one kind, and the error each must get. */
const MALFORMED: {
  id: string
  title: string
  /** Body, Content-Type (none when undefined), and what the case is. */
  cases: (valid: string, base: Record<string, unknown>) => [string, string | undefined, string][]
  status: number
  code: string
}[] = [
  {
    id: 'invalid-json',
    title: 'answers 400 invalid_json to a body that is not valid JSON',
    status: 400,
    code: 'invalid_json',
    cases: (valid) => [
      [valid.slice(0, -3), 'application/json', 'truncated JSON'],
      ['{"name": "x",}', 'application/json', 'JSON with a trailing comma'],
    ],
  },
  {
    id: 'not-an-object',
    title: 'answers 400 invalid_json to JSON that is not an object',
    status: 400,
    code: 'invalid_json',
    cases: () => [
      ['[]', 'application/json', 'a JSON array'],
      ['"text"', 'application/json', 'a JSON string'],
    ],
  },
  {
    id: 'media-type',
    title: 'answers 415 unsupported_media_type to a body that is not application/json',
    status: 415,
    code: 'unsupported_media_type',
    cases: (valid) => [
      [valid, 'text/plain', 'Content-Type text/plain'],
      [valid, 'application/x-www-form-urlencoded', 'a form-encoded Content-Type'],
      // The JSON a client sent without saying what it is: no Content-Type is not application/json.
      [valid, undefined, 'no Content-Type at all'],
    ],
  },
  {
    id: 'oversize',
    title: 'answers 413 payload_too_large to a body over 1 MiB',
    status: 413,
    code: 'payload_too_large',
    cases: (_valid, base) => [
      [
        JSON.stringify({ ...base, name: 'x'.repeat(1024 * 1024 + 16) }),
        'application/json',
        'a body over 1 MiB',
      ],
      // 413 comes before 415 (docs/decisions/005-order-of-checks.md): the size is the first thing wrong.
      ['x'.repeat(1024 * 1024 + 16), 'text/plain', 'a body over 1 MiB that is not JSON either'],
    ],
  },
  {
    id: 'oversize-bytes',
    title: 'answers 413 payload_too_large to a body over 1 MiB in UTF-8 bytes, though under it in characters',
    status: 413,
    code: 'payload_too_large',
    // 360,000 euro signs: 1,080,000 bytes in UTF-8 (three each), 360,000 characters.
    cases: (_valid, base) => [
      [
        JSON.stringify({ ...base, name: '€'.repeat(360_000) }),
        'application/json',
        'a body of 1,080,000 bytes',
      ],
    ],
  },
  {
    id: 'empty',
    title: 'answers 400 invalid_json to an empty body sent as application/json',
    status: 400,
    code: 'invalid_json',
    cases: () => [
      ['', 'application/json', 'an empty body'],
      ['  \n', 'application/json', 'a body of white space'],
    ],
  },
]

/** The largest body the spec allows (1 MiB), as JSON: `base` with a description padding it to `bytes`. */
function bodyOfBytes(base: Record<string, unknown>, bytes: number): string {
  const empty = JSON.stringify({ ...base, description: '' })
  return JSON.stringify({ ...base, description: 'x'.repeat(bytes - empty.length) })
}

/**
 * What the spec allows must not be refused as malformed: a media type is case-insensitive and may carry
 * parameters (RFC 9110 section 8.3.1), and a body of exactly 1 MiB is not over it (docs/decisions/007-errors.md).
 */
const allowedForms: ContractCheck = {
  id: 'bad-input/createAgent/allowed-forms',
  area: 'bad-input',
  group: 'createAgent',
  title:
    'accepts Content-Type Application/JSON with a charset, and does not answer 413 to a body of exactly 1 MiB',
  needs: ['write'],
  async run(ctx) {
    const created = await ctx.call({
      method: 'POST',
      path: '/agents',
      body: JSON.stringify(agentBody(ctx)),
      headers: { 'content-type': 'Application/JSON; charset=UTF-8' },
      operationId: 'createAgent',
    })
    expectStatus(created, 201, 'for Content-Type: Application/JSON; charset=UTF-8')
    const full = await ctx.call({
      method: 'POST',
      path: '/agents',
      body: bodyOfBytes(agentBody(ctx), 1024 * 1024),
      headers: { 'content-type': 'application/json' },
      operationId: 'createAgent',
    })
    ensure(
      full.response.status !== 413,
      'no 413 for a body of exactly 1 MiB (1,048,576 bytes): only bodies over it are too large',
      String(full.response.status),
      full,
    )
  },
}

function malformedChecks(operation: ContractOperation, target: BodyTarget): ContractCheck[] {
  return MALFORMED.map((kind) => ({
    id: `bad-input/${operation.operationId}/${kind.id}`,
    area: 'bad-input',
    group: operation.operationId,
    title: kind.title,
    needs: target.needs,
    async run(ctx) {
      const { path, base } = await target.prepare(ctx)
      const method = operation.method.toUpperCase()
      const valid = JSON.stringify({ ...base, ...(Object.keys(base).length === 0 ? { name: 'x' } : {}) })
      for (const [body, contentType, what] of kind.cases(valid, base)) {
        const exchange = await ctx.call({
          method,
          path,
          body,
          headers: contentType === undefined ? {} : { 'content-type': contentType },
          operationId: operation.operationId,
        })
        expectError(exchange, kind.status, { type: 'invalid_request_error', code: kind.code }, `for ${what}`)
      }
    },
  }))
}

/**
 * The pagination parameters: one shared definition in the contract, probed with every breakage on the first
 * list operation only (the bounds check of each list probes a limit and a cursor of its own).
 */
const PAGINATION = new Set(['limit', 'starting_after', 'ending_before'])

/**
 * Unknown query parameters, and each declared one with values that break its schema. A parameter with the
 * same schema as an earlier one of the operation (`max_` beside `min_duration_seconds`) gets its first
 * breakage only; the pagination parameters are left out unless `pagination`. A read-only run sends the
 * unknown parameter alone: the kinds of bad value are tried in it by the checks of the lists (the bounds of
 * `limit` and the cursors, the call-log filters, the analytics ranges), each on one parameter, all but a string
 * over its maximum length.
 */
function queryCheck(operation: ContractOperation, pagination: boolean): ContractCheck {
  const write = operation.method !== 'get'
  return {
    id: `bad-input/${operation.operationId}/query`,
    area: 'bad-input',
    group: operation.operationId,
    title:
      'answers 400 invalid_parameter naming an unknown query parameter or a declared one with a bad value',
    needs: write ? ['write'] : CALL_LOG_READS.has(operation.operationId) ? ['call-logs'] : [],
    async run(ctx) {
      const path = fillPath(operation.path, UNKNOWN_IDS)
      const method = operation.method.toUpperCase()
      const key = CALL_LOG_READS.has(operation.operationId) ? ctx.keys.callLogs : undefined
      const json = operation.requestBody
        ? operation.operationId === 'createAgent'
          ? agentBody(ctx)
          : {}
        : undefined
      const cases: [string, string, string][] = [
        ['contract_unknown=1', 'contract_unknown', 'an unknown parameter'],
      ]
      const schemas = new Set<string>()
      const declared = ctx.readOnly ? [] : operation.parameters.filter((p) => p.in === 'query')
      for (const parameter of declared) {
        if (!pagination && PAGINATION.has(parameter.name)) continue
        const breakages = parameterBreakages(ctx.contract.document, parameter.schema)
        const schema = JSON.stringify(parameter.schema)
        if (schemas.has(schema)) breakages.splice(1)
        schemas.add(schema)
        for (const breakage of breakages)
          cases.push([
            `${parameter.name}=${encodeURIComponent(breakage.value)}`,
            parameter.name,
            `${parameter.name} ${breakage.what}`,
          ])
      }
      for (const [query, param, what] of cases) {
        const exchange = await ctx.call({
          method,
          path: `${path}?${query}`,
          key,
          json,
          operationId: operation.operationId,
        })
        expectError(
          exchange,
          400,
          { type: 'invalid_request_error', code: 'invalid_parameter', param },
          `for ${what} (?${query})`,
        )
      }
    },
  }
}

/**
 * A body with two problems: both are listed in `errors[]`, each at the dotted path of its field; a metadata key
 * holding `/` and `~` is named as it is (not in JSON Pointer's escapes).
 */
const everyProblem: ContractCheck = {
  id: 'bad-input/createAgent/every-problem',
  area: 'bad-input',
  group: 'createAgent',
  title:
    'lists every problem of a body in errors[], each at the dotted path of its field (a metadata key with "/" and "~" as it is)',
  needs: ['write'],
  async run(ctx) {
    const key = 'crm/id~1'
    const json = agentBody(ctx, { metadata: { [key]: 'x'.repeat(501) }, contract_unknown_field: true })
    const exchange = await ctx.call({ method: 'POST', path: '/agents', json, operationId: 'createAgent' })
    expect422(exchange, `metadata.${key}`, ['max_length'], 'for a metadata value of 501 characters')
    expect422(exchange, 'contract_unknown_field', ['unknown_field'], 'for an unknown field beside it')
  },
}

/** Bad input for every operation: query parameters, bodies broken one field at a time, malformed bodies. */
export function badInputChecks(operations: readonly ContractOperation[]): ContractCheck[] {
  const checks: ContractCheck[] = []
  const firstList = operations.find((op) => op.parameters.some((p) => p.in === 'query' && p.name === 'limit'))
  for (const operation of operations) {
    checks.push(queryCheck(operation, operation === firstList))
    if (operation.operationId === 'createAgent') checks.push(allowedForms, everyProblem)
    const target = BODY_TARGETS[operation.operationId]
    if (operation.requestBody && target)
      checks.push(schemaCheck(operation, target), ...malformedChecks(operation, target))
  }
  return checks
}

import { bodyBreakages, parameterBreakages } from '../contract/breakages.ts'
import type { ContractOperation } from '../contract/operations.ts'
import { fillPath } from '../contract/operations.ts'
import type { Exchange } from '../http/exchange.ts'
import { ensure, expectError, jsonObject } from './failure.ts'
import { agentBody, createAgent, inviteBody, inviteMember, UNKNOWN_IDS } from './fixtures.ts'
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
      for (const breakage of bodyBreakages(ctx.contract.document, schema, base)) {
        const exchange = await ctx.call({
          method,
          path,
          json: breakage.body,
          operationId: operation.operationId,
        })
        expect422(exchange, breakage.param, breakage.codes, `for a body with ${breakage.description}`)
      }
    },
  }
}

function malformedCheck(operation: ContractOperation, target: BodyTarget): ContractCheck {
  return {
    id: `bad-input/${operation.operationId}/malformed`,
    area: 'bad-input',
    group: operation.operationId,
    title: 'answers 400 to malformed or non-object JSON, 415 to other media types, 413 to bodies over 1 MiB',
    needs: target.needs,
    async run(ctx) {
      const { path, base } = await target.prepare(ctx)
      const method = operation.method.toUpperCase()
      const send = (body: string, contentType: string) =>
        ctx.call({
          method,
          path,
          body,
          headers: { 'content-type': contentType },
          operationId: operation.operationId,
        })
      const valid = JSON.stringify({ ...base, ...(Object.keys(base).length === 0 ? { name: 'x' } : {}) })
      for (const [body, what] of [
        [valid.slice(0, -3), 'truncated JSON'],
        ['{"name": "x",}', 'JSON with a trailing comma'],
        ['[]', 'a JSON array'],
        ['"text"', 'a JSON string'],
      ] as const)
        expectError(
          await send(body, 'application/json'),
          400,
          { type: 'invalid_request_error', code: 'invalid_json' },
          `for ${what}`,
        )
      for (const type of ['text/plain', 'application/x-www-form-urlencoded'])
        expectError(
          await send(valid, type),
          415,
          { type: 'invalid_request_error', code: 'unsupported_media_type' },
          `for Content-Type ${type}`,
        )
      const big = JSON.stringify({ ...base, name: 'x'.repeat(1024 * 1024 + 16) })
      expectError(
        await send(big, 'application/json'),
        413,
        { type: 'invalid_request_error', code: 'payload_too_large' },
        'for a body over 1 MiB',
      )
    },
  }
}

/** Reads served from the account with call logs (its key may only read). */
const CALL_LOG_READS = new Set(['listCallLogs', 'getCallLog', 'getCallAnalytics'])

/** Unknown query parameters, and each declared one with values that break its schema. */
function queryCheck(operation: ContractOperation): ContractCheck {
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
      for (const parameter of operation.parameters.filter((p) => p.in === 'query'))
        for (const breakage of parameterBreakages(ctx.contract.document, parameter.schema))
          cases.push([
            `${parameter.name}=${encodeURIComponent(breakage.value)}`,
            parameter.name,
            `${parameter.name} ${breakage.what}`,
          ])
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

export function badInputChecks(operations: readonly ContractOperation[]): ContractCheck[] {
  const checks: ContractCheck[] = []
  for (const operation of operations) {
    checks.push(queryCheck(operation))
    const target = BODY_TARGETS[operation.operationId]
    if (operation.requestBody && target)
      checks.push(schemaCheck(operation, target), malformedCheck(operation, target))
  }
  return checks
}

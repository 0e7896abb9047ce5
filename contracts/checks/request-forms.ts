import { parameterBreakages } from '../contract/breakages.ts'
import { resolveRef } from '../contract/load-contract.ts'
import type { ContractOperation, ContractParameter } from '../contract/operations.ts'
import { ACCEPTS, encoded, OVERRIDES } from '../http/client-forms.ts'
import { ensure, expectError, expectStatus, jsonObject, listData } from './failure.ts'
import { agentBody, CALL_LOG_READS, createAgent, inviteBody } from './fixtures.ts'
import { resolveLocation } from './formats.ts'
import { canonicalJson } from './same-json.ts'
import type { CheckCallInput, CheckContext, ContractCheck } from './types.ts'

/**
 * Requests as everyday clients and frameworks write them, and as they must not be read: each rule here is one the
 * contract states or the HTTP and JSON standards fix, and each check is beyond a read-only run.
 */

/** The key that reads an operation: the call-log account's for its reads, the run's own otherwise. */
const keyFor = (ctx: CheckContext, operation: ContractOperation) =>
  CALL_LOG_READS.has(operation.operationId) ? ctx.keys.callLogs : undefined

/** The GET operations without path parameters. */
const plainReads = (ctx: CheckContext) =>
  ctx.contract.operations.filter((operation) => operation.method === 'get' && !operation.path.includes('{'))

const queryParameters = (operation: ContractOperation) => operation.parameters.filter((p) => p.in === 'query')

/**
 * An Accept that takes JSON gets the JSON answer (RFC 9110, 12.5.1; no operation documents a 406): every read
 * without parameters, under each Accept clients send, answers 200 and the same body as without one.
 */
const acceptForms: ContractCheck = {
  id: 'responses/accept-forms',
  area: 'responses',
  group: 'Headers',
  title:
    'answers every read the same under each Accept header that takes JSON (axios, a charset, */*, q-values)',
  needs: ['beyond-read-only'],
  async run(ctx) {
    for (const operation of plainReads(ctx).filter((op) => op.operationId !== 'getCallAnalytics')) {
      const key = keyFor(ctx, operation)
      const plain = await ctx.call({
        method: 'GET',
        path: operation.path,
        key,
        operationId: operation.operationId,
      })
      expectStatus(plain, 200, `for GET ${operation.path}`)
      for (const accept of ACCEPTS) {
        const answer = await ctx.call({
          method: 'GET',
          path: operation.path,
          key,
          headers: { accept },
          operationId: operation.operationId,
        })
        expectStatus(answer, 200, `for GET ${operation.path} with Accept: ${accept}`)
        ensure(
          canonicalJson(answer.response.json) === canonicalJson(plain.response.json),
          `GET ${operation.path} with Accept: ${accept} answered as without it`,
          'another answer',
          answer,
        )
      }
    }
  },
}

/**
 * Authentication comes first (docs/decisions/005-order-of-checks.md): a read whose query is wrong, sent without a
 * key or with a key nobody issued, is 401, not 400; so a stranger learns nothing of what the API accepts. Every
 * read with query parameters, each with its first broken value. 401s are not counted by the rate limit.
 */
const authenticationBeforeQuery: ContractCheck = {
  id: 'authentication/before-query',
  area: 'authentication',
  group: 'Order of checks',
  title: 'answers 401 before 400: a read with a broken query and no key, or a key nobody issued',
  needs: ['beyond-read-only'],
  async run(ctx) {
    const stranger = `sk-svc-${'Z'.repeat(40)}`
    for (const operation of plainReads(ctx)) {
      const parameter = queryParameters(operation)[0]
      if (!parameter) continue
      const broken = parameterBreakages(ctx.contract.document, parameter.schema)[0]
      if (!broken) continue
      const path = `${operation.path}?${parameter.name}=${encodeURIComponent(broken.value)}`
      for (const key of [null, stranger]) {
        const answer = await ctx.call({ method: 'GET', path, key, operationId: operation.operationId })
        expectError(
          answer,
          401,
          { type: 'authentication_error', code: 'invalid_api_key' },
          `for GET ${path} (${broken.what}) ${key === null ? 'without a key' : 'with a key nobody issued'}`,
        )
      }
    }
  },
}

/**
 * A method is the request line's (RFC 9110, 9.1): a POST to an agent's path is 405 whatever an override header
 * says, and the agent is still there afterwards.
 */
const methodOverride: ContractCheck = {
  id: 'responses/method-override',
  area: 'responses',
  group: 'Routing',
  title:
    "answers 405 to a POST to an agent's path carrying X-HTTP-Method-Override: DELETE, and deletes nothing",
  needs: ['write'],
  async run(ctx) {
    const id = String((await createAgent(ctx)).agent.id)
    for (const header of OVERRIDES) {
      const answer = await ctx.call({
        method: 'POST',
        path: `/agents/${id}`,
        headers: { [header]: 'DELETE' },
      })
      expectStatus(answer, 405, `for POST /agents/${id} with ${header}: DELETE`)
      expectStatus(
        await ctx.call({ method: 'GET', path: `/agents/${id}`, operationId: 'getAgent', fresh: true }),
        200,
        `reading the agent after a POST with ${header}: DELETE`,
      )
    }
  },
}

/**
 * Percent-encoded unreserved characters are the characters (RFC 3986, 2.3): an agent, a team member and an
 * integration read by an ID written with `%5F` and an encoded letter are the same object as by the plain ID.
 */
const encodedPathIds: ContractCheck = {
  id: 'resources/paths/encoded-ids',
  area: 'resources',
  group: 'Relations',
  title:
    'reads an object by its ID with percent-encoded unreserved characters (%5F for _) as by the plain ID',
  needs: ['beyond-read-only'],
  async run(ctx) {
    for (const collection of ['/agents', '/team-members', '/integrations']) {
      const list = await ctx.call({ method: 'GET', path: collection })
      expectStatus(list, 200)
      const id = listData(list)
        .map((item) => String(item.id))
        .find((each) => each.includes('_'))
      if (!id) continue
      const plain = await ctx.call({ method: 'GET', path: `${collection}/${id}` })
      expectStatus(plain, 200, `for GET ${collection}/${id}`)
      const path = `${collection}/${encoded(id)}`
      const answer = await ctx.call({ method: 'GET', path })
      expectStatus(answer, 200, `for GET ${path}, the ID ${id} percent-encoded`)
      ensure(
        canonicalJson(answer.response.json) === canonicalJson(plain.response.json),
        `GET ${path} answered as GET ${collection}/${id}`,
        'another answer',
        answer,
      )
    }
  },
}

/** An ID with the letter case of its random part turned over (`agt_aB3` -> `agt_Ab3`): another ID in base62. */
const otherCase = (id: string) => {
  const at = id.indexOf('_') + 1
  const rest = id.slice(at)
  return (
    id.slice(0, at) +
    [...rest].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('')
  )
}

/**
 * IDs are the type prefix and base62 characters (docs/decisions/001-general.md), where `a` and `A` are different
 * digits: the ID of an agent, a team member and a call log with the letter case of its random part turned over
 * (as a client or a URL normaliser that lower-cases might send it) names no object: 404 by path, 400
 * `invalid_cursor` as a cursor, and as the `agent_id` filter of the call logs an empty list.
 */
const idCase: ContractCheck = {
  id: 'resources/paths/id-case',
  area: 'resources',
  group: 'Relations',
  title:
    'finds no object by an ID in other letter case: 404 by path, 400 invalid_cursor as a cursor, no call logs as agent_id',
  needs: ['beyond-read-only'],
  async run(ctx) {
    const collections: [string, string | undefined][] = [
      ['/agents', undefined],
      ['/team-members', undefined],
      ['/call-logs', ctx.keys.callLogs],
    ]
    for (const [collection, key] of collections) {
      if (collection === '/call-logs' && !key) continue
      const list = await ctx.call({ method: 'GET', path: collection, key })
      expectStatus(list, 200)
      const item = listData(list).find((each) => /[A-Za-z]/.test(String(each.id).split('_').pop() ?? ''))
      if (!item) continue
      const id = otherCase(String(item.id))
      expectError(
        await ctx.call({ method: 'GET', path: `${collection}/${id}`, key }),
        404,
        { code: 'resource_not_found' },
        `for GET ${collection}/${id}, the ID ${String(item.id)} in other letter case`,
      )
      expectError(
        await ctx.call({ method: 'GET', path: `${collection}?starting_after=${id}`, key }),
        400,
        { code: 'invalid_cursor', param: 'starting_after' },
        `for starting_after=${id}, the ID ${String(item.id)} in other letter case`,
      )
      if (collection !== '/call-logs' || typeof item.agent_id !== 'string') continue
      const agent = otherCase(item.agent_id)
      const filtered = await ctx.call({ method: 'GET', path: `/call-logs?agent_id=${agent}`, key })
      expectStatus(filtered, 200, `for agent_id=${agent}, the agent ${item.agent_id} in other letter case`)
      ensure(
        listData(filtered).length === 0,
        `no call logs for agent_id=${agent} (the agent ${item.agent_id} in other letter case is another ID)`,
        `${listData(filtered).length} call logs`,
        filtered,
      )
    }
  },
}

const enumOf = (ctx: CheckContext, parameter: ContractParameter) =>
  resolveRef<{ enum?: unknown[] }>(ctx.contract.document, parameter.schema).enum?.filter(
    (value): value is string => typeof value === 'string' && value.toUpperCase() !== value,
  )

/**
 * Enum values are matched exactly (JSON Schema's `enum`; docs/decisions/007-errors.md: a value outside it is 400):
 * each enum query parameter with one of its values in capitals is 400 naming it.
 */
const enumCase: ContractCheck = {
  id: 'bad-input/enum-case',
  area: 'bad-input',
  group: 'Query parameters',
  title: 'answers 400 naming the parameter for an enum value in other letter case (status=COMPLETED)',
  needs: ['call-logs', 'beyond-read-only'],
  async run(ctx) {
    for (const operation of plainReads(ctx))
      for (const parameter of queryParameters(operation)) {
        const value = enumOf(ctx, parameter)?.[0]
        if (!value) continue
        const path = `${operation.path}?${parameter.name}=${value.toUpperCase()}`
        expectError(
          await ctx.call({
            method: 'GET',
            path,
            key: keyFor(ctx, operation),
            operationId: operation.operationId,
          }),
          400,
          { type: 'invalid_request_error', code: 'invalid_parameter', param: parameter.name },
          `for ?${parameter.name}=${value.toUpperCase()}`,
        )
      }
  },
}

/**
 * A query parameter given with no value is given a value that breaks its schema (the contract: "a value of the
 * wrong shape ... is 400"): each query parameter of every read whose schema refuses the empty string, sent as
 * `name=`, is 400 naming it (never read as absent).
 */
const emptyValues: ContractCheck = {
  id: 'bad-input/empty-values',
  area: 'bad-input',
  group: 'Query parameters',
  title: 'answers 400 naming the parameter for a query parameter given with no value (limit=)',
  needs: ['call-logs', 'beyond-read-only'],
  async run(ctx) {
    for (const operation of plainReads(ctx))
      for (const parameter of queryParameters(operation)) {
        if (ctx.contract.validator.validate(parameter.schema, '').length === 0) continue
        const path = `${operation.path}?${parameter.name}=`
        expectError(
          await ctx.call({
            method: 'GET',
            path,
            key: keyFor(ctx, operation),
            operationId: operation.operationId,
          }),
          400,
          { type: 'invalid_request_error', code: 'invalid_parameter', param: parameter.name },
          `for ?${parameter.name}= (no value)`,
        )
      }
  },
}

/**
 * JSON does not tell `600`, `600.0` and `6e2` apart (RFC 8259, 6), nor does JSON Schema's `integer` (a number with
 * no fraction): an agent whose integer fields are written with a fraction of zero or an exponent is created with
 * those integers.
 */
const numberForms: ContractCheck = {
  id: 'bad-input/createAgent/number-forms',
  area: 'bad-input',
  group: 'createAgent',
  title: 'accepts integers written as 600.0 or 1e3 in a body and stores the integers',
  needs: ['write'],
  async run(ctx) {
    const body = agentBody(ctx, {
      max_call_duration_seconds: 600,
      llm: { provider: 'openai', model: 'gpt-4o', max_tokens: 1000 },
    })
    const text = JSON.stringify(body)
      .replace('"max_call_duration_seconds":600', '"max_call_duration_seconds":600.0')
      .replace('"max_tokens":1000', '"max_tokens":1e3')
    const created = await ctx.call({
      method: 'POST',
      path: '/agents',
      body: text,
      headers: { 'content-type': 'application/json' },
      operationId: 'createAgent',
    })
    expectStatus(created, 201, 'for max_call_duration_seconds 600.0 and llm.max_tokens 1e3')
    const agent = jsonObject(created) as {
      max_call_duration_seconds?: unknown
      llm?: { max_tokens?: unknown }
    }
    ensure(
      agent.max_call_duration_seconds === 600 && agent.llm?.max_tokens === 1000,
      'max_call_duration_seconds 600 and llm.max_tokens 1000',
      `${String(agent.max_call_duration_seconds)} and ${String(agent.llm?.max_tokens)}`,
      created,
    )
  },
}

/**
 * Addresses are compared ignoring letter case only (the contract's inviteTeamMember: e-mail addresses are
 * case-insensitive): dots and a `+tag` make other addresses, also at gmail.com, so each is invited and listed as
 * sent (in lower case).
 */
const distinctAddresses: ContractCheck = {
  id: 'resources/team-members/distinct-addresses',
  area: 'resources',
  group: 'Team members',
  title: 'invites addresses that differ by a dot or a +tag (at gmail.com too) as different members',
  needs: ['write'],
  async run(ctx) {
    const local = `contract.suite.${ctx.runId.toLowerCase().replace(/[^a-z0-9]/g, '')}`
    const addresses = [
      `${local}@gmail.com`,
      `${local.replaceAll('.', '')}@gmail.com`,
      `${local}+tag@gmail.com`,
      `${local}@googlemail.com`,
    ]
    for (const email of addresses) {
      const input: CheckCallInput = {
        method: 'POST',
        path: '/team-members',
        json: inviteBody(ctx, { email }),
        operationId: 'inviteTeamMember',
      }
      const invited = await ctx.call(input)
      expectStatus(
        invited,
        201,
        `inviting ${email} beside ${addresses.filter((a) => a !== email).join(', ')}`,
      )
      ensure(
        jsonObject(invited).email === email,
        `email ${email} as sent`,
        String(jsonObject(invited).email),
        invited,
      )
    }
  },
}

/** IANA names newer than many bundled copies of the database (2020-2022). */
const NEWER_ZONES = ['Europe/Kyiv', 'Pacific/Kanton', 'America/Ciudad_Juarez', 'America/Nuuk']

/**
 * `timezone` is an IANA time zone name (the contract's getCallAnalytics): names the database added lately are
 * names too. Each of those the suite's own runtime knows is answered 200 and echoed.
 */
const zoneNames: ContractCheck = {
  id: 'resources/analytics/time-zone-names',
  area: 'resources',
  group: 'Analytics',
  title:
    'accepts time zone names the IANA database added lately (Europe/Kyiv, Pacific/Kanton, America/Ciudad_Juarez)',
  needs: ['call-logs', 'beyond-read-only'],
  async run(ctx) {
    const known = (zone: string) => {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: zone })
        return true
      } catch {
        return false
      }
    }
    for (const zone of NEWER_ZONES.filter(known)) {
      const path = `/analytics/calls?timezone=${encodeURIComponent(zone)}`
      const answer = await ctx.call({
        method: 'GET',
        path,
        key: ctx.keys.callLogs,
        operationId: 'getCallAnalytics',
      })
      expectStatus(answer, 200, `for timezone=${zone}`)
      ensure(
        jsonObject(answer).timezone === zone,
        `timezone "${zone}" echoed`,
        String(jsonObject(answer).timezone),
        answer,
      )
    }
  },
}

/** Headers a proxy passes on from the client as they came, naming a host and scheme the client chose. */
const FORWARDED = {
  'x-forwarded-host': 'forwarded.invalid',
  'x-forwarded-proto': 'http',
  forwarded: 'host=forwarded.invalid',
}

/**
 * A `Location` is "built from the server's own public base URL (never from the request's `Host` header, which
 * the client chooses)" (the contract, header Location): a create sent with X-Forwarded-Host, X-Forwarded-Proto
 * and Forwarded answers a `Location` on the same origin as a plain create. And it names the created object: a
 * create sent to the collection with a trailing slash, where the target takes it, answers a `Location` that
 * resolves to the object's own path (`.../agents/<id>`), not to the path the client wrote with the ID after it.
 */
const locationOwnHost: ContractCheck = {
  id: 'responses/location-own-host',
  area: 'responses',
  group: 'Headers',
  title: "answers a create's Location on the server's own origin, whatever X-Forwarded-Host or Forwarded say",
  needs: ['write'],
  async run(ctx) {
    const origin = (exchange: Awaited<ReturnType<typeof createAgent>>['exchange']) =>
      resolveLocation(exchange.response.headers.location, exchange.request.url)?.origin
    const plain = origin((await createAgent(ctx)).exchange)
    const forwarded = await ctx.call({
      method: 'POST',
      path: '/agents',
      json: agentBody(ctx),
      headers: FORWARDED,
      operationId: 'createAgent',
    })
    expectStatus(forwarded, 201, 'for a valid create-agent body sent with X-Forwarded-Host')
    ensure(
      origin(forwarded) === plain,
      `a Location on ${plain} (as for a create without forwarded headers)`,
      `Location: ${forwarded.response.headers.location}`,
      forwarded,
    )
    const slashed = await ctx.call({
      method: 'POST',
      path: '/agents/',
      json: agentBody(ctx),
      operationId: 'createAgent',
    })
    if (slashed.response.status !== 201) return
    const apiPath = new URL(ctx.target.baseUrl).pathname.replace(/\/+$/, '')
    const want = `${apiPath}/agents/${String(jsonObject(slashed).id)}`
    const named = resolveLocation(slashed.response.headers.location, slashed.request.url)
    ensure(
      named?.pathname === want,
      `a Location naming the created agent, ${want} (the create was sent to /agents/ with a trailing slash)`,
      `Location: ${slashed.response.headers.location}`,
      slashed,
    )
  },
}

/** Requests as clients write them. */
export const requestFormChecks: ContractCheck[] = [
  acceptForms,
  authenticationBeforeQuery,
  methodOverride,
  encodedPathIds,
  idCase,
  enumCase,
  emptyValues,
  numberForms,
  distinctAddresses,
  zoneNames,
  locationOwnHost,
]

import type { Exchange } from '../http/exchange.ts'
import { firstMissing } from './authorization.ts'
import { ensure, expectError, expectStatus, jsonObject } from './failure.ts'
import { agentBody, inviteBody, inviteMember, scratchAccount } from './fixtures.ts'
import type { CheckCallInput, CheckContext, ContractCheck } from './types.ts'

const group = 'Idempotency'
const DAY_SECONDS = 24 * 3600

const idempotencyKey = (ctx: CheckContext) => `contract-${ctx.runId}-${crypto.randomUUID()}`

function post(
  ctx: CheckContext,
  key: string,
  path: '/agents' | '/team-members',
  input: Omit<CheckCallInput, 'method' | 'path'>,
): Promise<Exchange> {
  return ctx.call({
    method: 'POST',
    path,
    ...input,
    headers: { ...input.headers, 'idempotency-key': key },
    operationId: path === '/agents' ? 'createAgent' : 'inviteTeamMember',
  })
}

/** Fails when the answer says it is a replay. */
function expectExecuted(exchange: Exchange, status: number, why: string): void {
  expectStatus(exchange, status, why)
  const replayed = exchange.response.headers['idempotent-replayed']
  ensure(
    replayed === undefined || replayed === 'false',
    `no Idempotent-Replayed: true ${why} (the request runs again)`,
    String(replayed),
    exchange,
  )
}

/** Fails unless the answer is the stored 201 of `original`, marked as a replay. */
function expectReplayOf(exchange: Exchange, original: Exchange, why: string): void {
  expectStatus(exchange, 201, why)
  const header = exchange.response.headers['idempotent-replayed']
  ensure(header === 'true', `Idempotent-Replayed: true ${why}`, String(header ?? '(absent)'), exchange)
  ensure(
    JSON.stringify(jsonObject(exchange)) === JSON.stringify(jsonObject(original)),
    `the stored response ${why}`,
    `object ${String(jsonObject(exchange).id)} instead of ${String(jsonObject(original).id)}`,
    exchange,
  )
}

/**
 * The contract: "Error responses are not stored: retrying after a 4xx executes the request again." So after
 * a 400 (malformed JSON), a 422 (invalid body) or a 409 from the operation itself (an e-mail already
 * invited), the same Idempotency-Key with the same body fails again (not replayed), and with a corrected
 * body it creates the object: the failed body was never stored, so it cannot make the new one a 409
 * `idempotency_key_reused`. Only then is the key bound, to the success.
 */
const failedFirst: ContractCheck = {
  id: 'resources/idempotency/failed-first',
  area: 'resources',
  group,
  title:
    'stores no error answer: after a 400, 422 or 409 the same Idempotency-Key runs again and then binds to the success',
  needs: ['write'],
  async run(ctx) {
    const key = idempotencyKey(ctx)
    const invalid = { ...agentBody(ctx), voice: { provider: 'no-such-provider', voice_id: 'x' } }
    for (const attempt of ['first', 'second'])
      expectExecuted(
        await post(ctx, key, '/agents', { json: invalid }),
        422,
        `for the ${attempt} invalid body`,
      )
    const malformed = await post(ctx, key, '/agents', {
      body: '{"name": "Contract suite",',
      headers: { 'content-type': 'application/json' },
    })
    expectExecuted(malformed, 400, 'for malformed JSON under the same key')
    const body = agentBody(ctx)
    const created = await post(ctx, key, '/agents', { json: body })
    expectExecuted(created, 201, 'for a valid body after the failures (they were not stored)')
    expectReplayOf(await post(ctx, key, '/agents', { json: body }), created, 'for the valid body sent again')
    // 422 comes before 409 in the order of checks: an invalid body under a bound key is still a 422.
    expectError(
      await post(ctx, key, '/agents', { json: invalid }),
      422,
      { type: 'validation_error', code: 'validation_failed' },
      'for the invalid body once the key is bound to the success',
    )
    expectError(
      await post(ctx, key, '/team-members', { json: inviteBody(ctx) }),
      409,
      { type: 'conflict_error', code: 'idempotency_key_reused' },
      'for the same key on another path',
    )

    const { member } = await inviteMember(ctx)
    const memberKey = idempotencyKey(ctx)
    const taken = inviteBody(ctx, { email: member.email })
    for (const attempt of ['first', 'second'])
      expectExecuted(
        await post(ctx, memberKey, '/team-members', { json: taken }),
        409,
        `for the ${attempt} invitation of an e-mail already invited`,
      )
    const fresh = inviteBody(ctx)
    const invited = await post(ctx, memberKey, '/team-members', { json: fresh })
    expectExecuted(invited, 201, 'for a new e-mail under the key of the refused invitation')
    expectReplayOf(
      await post(ctx, memberKey, '/team-members', { json: fresh }),
      invited,
      'for the invitation sent again',
    )
  },
}

/**
 * Keys are scoped to the account: another API key of the same account gets the stored response, a key of
 * another account creates its own object. A replay is still authenticated and permission checked.
 */
const accountScope: ContractCheck = {
  id: 'resources/idempotency/account-scope',
  area: 'resources',
  group,
  title:
    'replays to every key of the account that may write, refuses a replay to a key without the scope (403), and never crosses accounts',
  needs: ['write', 'scoped-keys'],
  async run(ctx) {
    const key = idempotencyKey(ctx)
    const body = agentBody(ctx)
    const created = await post(ctx, key, '/agents', { json: body })
    expectExecuted(created, 201, 'for the first request')
    const writer = ctx.keys.scoped.find((k) => !firstMissing(k.scopes, ['agents:write']))
    if (writer)
      expectReplayOf(
        await post(ctx, key, '/agents', { json: body, key: writer.key }),
        created,
        'for another key of the same account',
      )
    const reader = ctx.keys.scoped.find((k) => firstMissing(k.scopes, ['agents:write']))
    if (reader)
      expectError(
        await post(ctx, key, '/agents', { json: body, key: reader.key }),
        403,
        { code: 'insufficient_permissions', required_permission: 'agents:write' },
        'for a replay with a key lacking agents:write',
      )
    const mock = ctx.mock
    if (!mock) return
    const { account, name } = await scratchAccount(ctx, mock, 'idempotency')
    const other = await mock.createKey(account.id, { type: 'secret', name })
    const elsewhere = await post(ctx, key, '/agents', {
      json: body,
      key: other.value,
      sensitive: [other.value],
    })
    expectExecuted(elsewhere, 201, 'for the same key and body in another account')
    ensure(
      jsonObject(elsewhere).id !== jsonObject(created).id,
      "another account's own agent",
      String(jsonObject(elsewhere).id),
      elsewhere,
    )
  },
}

/**
 * A replay is the stored answer, not the object as it is now: the contract, Idempotency: "returns the stored
 * status, headers and body, plus `Idempotent-Replayed: true`"; createAgent: "a replay returns the stored 201".
 * So a retried create, after the agent (or the invited member) was changed, still shows it as it was created.
 */
const storedAnswer: ContractCheck = {
  id: 'resources/idempotency/stored-answer',
  area: 'resources',
  group,
  title:
    'replays the answer stored at creation, not the object as it is after a change (an agent renamed, then deleted: nothing created again; a member given another role)',
  needs: ['write'],
  async run(ctx) {
    const agentKey = idempotencyKey(ctx)
    const body = agentBody(ctx)
    const created = await post(ctx, agentKey, '/agents', { json: body })
    expectExecuted(created, 201, 'for the first request')
    const agentPath = `/agents/${jsonObject(created).id}`
    const renamed = await ctx.call({
      method: 'PATCH',
      path: agentPath,
      json: { name: `${String(body.name)} renamed` },
      operationId: 'updateAgent',
    })
    expectStatus(renamed, 200, `for PATCH ${agentPath} with a new name`)
    expectReplayOf(
      await post(ctx, agentKey, '/agents', { json: body }),
      created,
      'for the create sent again after the agent was renamed',
    )
    // Nor is a stored answer checked against what exists now: after the agent's deletion, a retry is still a
    // replay, and nothing is created again.
    const deleted = await ctx.call({ method: 'DELETE', path: agentPath, operationId: 'deleteAgent' })
    expectStatus(deleted, 200, `for DELETE ${agentPath}`)
    ctx.untrack(agentPath)
    expectReplayOf(
      await post(ctx, agentKey, '/agents', { json: body }),
      created,
      'for the create sent again after the agent was deleted',
    )
    const memberKey = idempotencyKey(ctx)
    const invitation = inviteBody(ctx, { role: 'viewer' })
    const invited = await post(ctx, memberKey, '/team-members', { json: invitation })
    expectExecuted(invited, 201, 'for the first invitation')
    const memberPath = `/team-members/${jsonObject(invited).id}`
    const promoted = await ctx.call({
      method: 'PATCH',
      path: memberPath,
      json: { role: 'editor' },
      operationId: 'updateTeamMember',
    })
    expectStatus(promoted, 200, `for PATCH ${memberPath} with another role`)
    expectReplayOf(
      await post(ctx, memberKey, '/team-members', { json: invitation }),
      invited,
      'for the invitation sent again after the member was given another role',
    )
  },
}

/**
 * What "the same key" and "the same body" are: a key is an opaque string compared exactly (IdempotencyKey:
 * "1-255 printable ASCII characters"), so the same key in other letter case is another key and its request
 * runs; a body is compared as a JSON value whole (Idempotency: "the same body (compared as JSON values)"), so
 * a body that differs only inside a nested object is another body: 409 `idempotency_key_reused`.
 */
const sameKeySameBody: ContractCheck = {
  id: 'resources/idempotency/same-key-same-body',
  area: 'resources',
  group,
  title:
    'compares Idempotency-Keys exactly (the key in other letter case runs the request again) and bodies whole (a change inside voice or llm is another body: 409)',
  needs: ['write'],
  async run(ctx) {
    const key = `Contract-${ctx.runId}-${crypto.randomUUID()}`.replace(/[a-f]/g, (c) => c.toUpperCase())
    const body = agentBody(ctx)
    const created = await post(ctx, key, '/agents', { json: body })
    expectExecuted(created, 201, 'for the first request')
    const lower = await post(ctx, key.toLowerCase(), '/agents', { json: body })
    expectExecuted(
      lower,
      201,
      `for the same body under the key in lower case (${key.toLowerCase()}: another key)`,
    )
    ensure(
      jsonObject(lower).id !== jsonObject(created).id,
      'a new agent for another key',
      String(jsonObject(lower).id),
      lower,
    )
    const voice = (body.voice ?? {}) as Record<string, unknown>
    const nested = { ...body, voice: { ...voice, speed: voice.speed === 1.5 ? 1.25 : 1.5 } }
    expectError(
      await post(ctx, key, '/agents', { json: nested }),
      409,
      { type: 'conflict_error', code: 'idempotency_key_reused' },
      'for the same key with a body that differs only in voice.speed',
    )
  },
}

/** Keys are kept 24 hours by the platform clock: a replay just before, a new request just after. */
const expiry: ContractCheck = {
  id: 'resources/idempotency/expiry',
  area: 'resources',
  group,
  title:
    'keeps an Idempotency-Key for 24 hours of the clock from the first request: a replay before, the same request run again after (a replay does not keep it alive), and the key bound anew',
  needs: ['write', 'clock'],
  exclusive: true,
  async run(ctx) {
    const mock = ctx.mock
    if (!mock) return ctx.skip("needs the mock's clock")
    const key = idempotencyKey(ctx)
    const body = agentBody(ctx)
    const created = await post(ctx, key, '/agents', { json: body })
    expectExecuted(created, 201, 'for the first request')
    await mock.advanceClock(DAY_SECONDS - 60)
    expectReplayOf(await post(ctx, key, '/agents', { json: body }), created, 'a minute before 24 hours')
    await mock.advanceClock(120)
    // 24 hours after the first request, not after the replay: a replay does not keep the key alive.
    const again = await post(ctx, key, '/agents', { json: body })
    expectExecuted(again, 201, 'for the first body a minute after 24 hours (the key has expired)')
    ensure(
      jsonObject(again).id !== jsonObject(created).id,
      'a new agent (the key expired 24 hours after the first request, whatever replays came between)',
      String(jsonObject(again).id),
      again,
    )
    // The key is bound anew, to the request that ran again.
    expectReplayOf(await post(ctx, key, '/agents', { json: body }), again, 'for the new request sent again')
    expectError(
      await post(ctx, key, '/agents', { json: agentBody(ctx) }),
      409,
      { type: 'conflict_error', code: 'idempotency_key_reused' },
      'for another body under the key bound anew',
    )
  },
}

/** Idempotency beyond the happy path: failed first requests, account scope, expiry. */
export const idempotencyRetryChecks: ContractCheck[] = [
  failedFirst,
  accountScope,
  storedAnswer,
  sameKeySameBody,
]
/** Moves the clock a whole day: run after the checks that read time-dependent data. */
export const idempotencyExpiryChecks: ContractCheck[] = [expiry]

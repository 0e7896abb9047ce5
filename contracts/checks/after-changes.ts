import { readRateLimitHeaders } from '../http/rate-limit-headers.ts'
import { ensure, expectError, expectStatus, inOrder, jsonObject, listData } from './failure.ts'
import { agentBody, inviteBody, scratchAccount } from './fixtures.ts'
import { PLAN_LIMITS } from './rate-limit-account.ts'
import { skipProxyHead } from './relations.ts'
import type { CheckCallInput, CheckContext, ContractCheck } from './types.ts'

/**
 * What a change does to the very next request: no cache of the account, its plan, its objects or its idempotency
 * records may answer for what is there now. Each check makes an account and keys of its own through the mock's
 * control plane.
 */

/** An account of the check's own with a secret key, and a sender that uses that key (never the run's answers). */
export async function ownAccount(ctx: CheckContext, label: string) {
  const mock = ctx.mock
  if (!mock) return ctx.skip('needs an account made through the mock control plane (--provision mock)')
  const { account, name } = await scratchAccount(ctx, mock, label)
  const made = await mock.createKey(account.id, { type: 'secret', name })
  const send = (input: CheckCallInput) =>
    ctx.call({ ...input, key: made.value, sensitive: [made.value], fresh: true })
  return { mock, account, name, key: made, send }
}

/**
 * A plan changed through the control plane shows on the next request (the spec: limits are the plan's):
 * `GET /user` tells the new plan, `RateLimit-Policy` its quotas, and the windows admit what the new plan allows
 * (twelve requests within a minute on pro, two more than free's burst).
 */
const planChange: ContractCheck = {
  id: 'resources/user/plan-change',
  area: 'resources',
  group: 'User',
  title:
    "shows a plan change on the next request: GET /user's plan, the RateLimit-Policy quotas and what the windows admit",
  needs: ['own-account'],
  async run(ctx) {
    const { mock, account, send } = await ownAccount(ctx, 'plan change')
    const read = async (plan: 'free' | 'pro', when: string) => {
      const exchange = await send({
        method: 'GET',
        path: '/user',
        operationId: 'getUser',
        rateLimitProbe: true,
      })
      expectStatus(exchange, 200, `for GET /user ${when}`)
      ensure(
        jsonObject(exchange).plan === plan,
        `plan "${plan}" ${when}`,
        String(jsonObject(exchange).plan),
        exchange,
      )
      const headers = readRateLimitHeaders(exchange.response.headers)
      ensure(headers.ok, 'readable rate-limit headers', headers.ok ? '' : headers.error, exchange)
      if (!headers.ok) return
      const quotas = Object.fromEntries(headers.value.policies.map((p) => [p.name, p.quota]))
      const want = PLAN_LIMITS[plan]
      ensure(
        quotas.hourly === want.hourly && quotas.burst === want.burst,
        `RateLimit-Policy quotas ${want.hourly} an hour and ${want.burst} a minute (the ${plan} plan) ${when}`,
        JSON.stringify(quotas),
        exchange,
      )
    }
    await mock.updateAccount(account.id, { plan: 'free', limits: null })
    await read('free', 'on the free plan')
    await mock.updateAccount(account.id, { plan: 'pro' })
    await read('pro', 'right after the plan changed from free to pro')
    const burst = PLAN_LIMITS.free.burst
    for (let i = 2; i < burst + 2; i++)
      expectStatus(
        await send({ method: 'GET', path: '/user', operationId: 'getUser', rateLimitProbe: true }),
        200,
        `for request ${i + 1} within a minute on the pro plan (the free plan's burst is ${burst})`,
      )
  },
}

type Own = Awaited<ReturnType<typeof ownAccount>>

/** A deletable object of each kind a key can make (or the mock's control plane, for a call log), and its path. */
const DELETABLE: { what: string; make: (ctx: CheckContext, own: Own) => Promise<string> }[] = [
  { what: 'an agent', make: (ctx, own) => madeAt(own, '/agents', agentBody(ctx)) },
  { what: 'a team member', make: (ctx, own) => madeAt(own, '/team-members', inviteBody(ctx)) },
]

/** Creates an object in `collection` on the check's own account: its path. */
export async function madeAt(own: Own, collection: string, json: Record<string, unknown>): Promise<string> {
  const created = await own.send({ method: 'POST', path: collection, json })
  expectStatus(created, 201, `creating an object in ${collection}`)
  return `${collection}/${String(jsonObject(created).id)}`
}

/** A call placed through the control plane: its call log. */
const CALL_LOG = {
  what: 'a call log',
  make: async (ctx: CheckContext, own: Own) => {
    const agent = (await madeAt(own, '/agents', agentBody(ctx))).split('/').at(-1)
    const call = await own.mock.placeCall(own.account.id, {
      agent_id: agent,
      ring_seconds: 1,
      duration_seconds: 5,
    })
    return `/call-logs/${String(call.id)}`
  },
}

/**
 * HEAD is GET without a body (RFC 9110, 9.3.2), before and after a delete: a deleted object's HEAD is 404 as its
 * GET is, for each kind of object (call logs in a check of their own, for targets that place calls).
 */
function headAfterDelete(id: string, kinds: typeof DELETABLE, needs: ContractCheck['needs']): ContractCheck {
  return {
    id,
    area: 'resources',
    group: 'Deletes',
    title: `answers HEAD of a deleted object 404 as its GET (${kinds.map((k) => k.what).join(', ')}), never from an earlier answer`,
    needs,
    async run(ctx) {
      const own = await ownAccount(ctx, 'HEAD after delete')
      const { send } = own
      for (const { what, make } of kinds) {
        const path = await make(ctx, own)
        const both = () =>
          inOrder([send({ method: 'GET', path }), send({ method: 'HEAD', path, conformance: false })])
        const [got, head] = await both()
        if (head) skipProxyHead(head, path)
        ensure(
          got?.response.status === 200 && head?.response.status === 200,
          `GET and HEAD of ${what} just made both 200`,
          `${got?.response.status} and ${head?.response.status}`,
          head,
        )
        expectStatus(await send({ method: 'DELETE', path }), 200, `deleting ${what}`)
        const [gone, headGone] = await both()
        ensure(
          gone?.response.status === 404,
          `GET of ${what} deleted 404`,
          String(gone?.response.status),
          gone,
        )
        ensure(
          headGone?.response.status === 404,
          `HEAD of ${what} deleted 404, as its GET (RFC 9110: HEAD is GET without the body)`,
          String(headGone?.response.status),
          headGone,
        )
        // A preflight is about the path, not the object (the contract, CORS: answered 204 "for every
        // documented path", not authenticated): the deleted object's path is still one.
        const preflight = await ctx.call({
          method: 'OPTIONS',
          path,
          key: null,
          headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
          conformance: false,
        })
        ensure(
          preflight.response.status === 204,
          `a CORS preflight of ${what}'s path 204 after its deletion (the path is documented)`,
          String(preflight.response.status),
          preflight,
        )
      }
    },
  }
}

/** How many idempotent creates the many-keys check makes before it retries them all. */
const MANY_KEYS = 12

/**
 * Keys told apart by every character, in pairs that a 32-bit string hash (Java's `hashCode`) maps to one value:
 * `Aa` and `BB` hash alike, and so do two keys that differ only there.
 */
const idempotencyKey = (ctx: CheckContext, i: number) =>
  `contract-${ctx.runId}-${i % 2 === 0 ? 'Aa' : 'BB'}-${Math.floor(i / 2)}`

/**
 * An `Idempotency-Key` is kept for 24 hours (docs/decisions/008-lists-and-idempotency.md), however many other keys
 * the account uses meanwhile: twelve creates with keys of their own (in pairs a 32-bit hash does not tell apart),
 * then each retried, each a replay of its own first answer.
 */
const manyKeys: ContractCheck = {
  id: 'resources/idempotency/many-keys',
  area: 'resources',
  group: 'Idempotency',
  title:
    'replays each of twelve idempotent creates when they are all retried after one another (no key forgotten)',
  needs: ['write'],
  async run(ctx) {
    const { send } = await ownAccount(ctx, 'idempotency keys')
    const bodies = Array.from({ length: MANY_KEYS }, () => agentBody(ctx))
    const post = (i: number) =>
      send({
        method: 'POST',
        path: '/agents',
        json: bodies[i],
        headers: { 'idempotency-key': idempotencyKey(ctx, i) },
        operationId: 'createAgent',
      })
    const first: string[] = []
    for (let i = 0; i < MANY_KEYS; i++) {
      const exchange = await post(i)
      expectStatus(exchange, 201, `for create ${i + 1} with a key of its own`)
      first.push(String(jsonObject(exchange).id))
    }
    for (let i = 0; i < MANY_KEYS; i++) {
      const again = await post(i)
      expectStatus(again, 201, `for the retry of create ${i + 1} after ${MANY_KEYS - 1} other keys`)
      ensure(
        jsonObject(again).id === first[i],
        `the retry of create ${i + 1} to replay ${first[i]}`,
        String(jsonObject(again).id),
        again,
      )
    }
  },
}

/**
 * Bodies of one `Idempotency-Key` are compared as JSON values (docs/decisions/008-lists-and-idempotency.md), not as
 * the objects they would make: a retry that adds a field at its default value is another body, 409.
 */
const defaultsAnotherBody: ContractCheck = {
  id: 'resources/idempotency/defaults-another-body',
  area: 'resources',
  group: 'Idempotency',
  title:
    'answers 409 to a retry that adds fields at their default values (another JSON body, the same agent)',
  needs: ['write'],
  async run(ctx) {
    const { send } = await ownAccount(ctx, 'idempotency defaults')
    const body = agentBody(ctx)
    const headers = { 'idempotency-key': `contract-${ctx.runId}-defaults` }
    const post = (json: Record<string, unknown>) =>
      send({ method: 'POST', path: '/agents', json, headers, operationId: 'createAgent' })
    expectStatus(await post(body), 201, 'for an idempotent create')
    const defaults = { status: 'active', recording_enabled: false }
    expectError(
      await post({ ...body, ...defaults }),
      409,
      { type: 'conflict_error', code: 'idempotency_key_reused' },
      `for its retry with ${JSON.stringify(defaults)} added (their defaults)`,
    )
  },
}

/**
 * Authentication comes before everything (docs/decisions/005-order-of-checks.md), a stored idempotent answer
 * included: once the key that made a create is revoked, its retry is 401, not the replay.
 */
const revokedRetry: ContractCheck = {
  id: 'resources/idempotency/revoked-retry',
  area: 'resources',
  group: 'Idempotency',
  title:
    'answers 401 to the retry of an idempotent create once its key is revoked (authentication before the replay)',
  needs: ['write'],
  async run(ctx) {
    const { mock, key, send } = await ownAccount(ctx, 'revoked retry')
    const input: CheckCallInput = {
      method: 'POST',
      path: '/agents',
      json: agentBody(ctx),
      headers: { 'idempotency-key': `contract-${ctx.runId}-revoked` },
      operationId: 'createAgent',
    }
    expectStatus(await send(input), 201, 'for an idempotent create')
    await mock.revokeKey(key.id)
    expectError(
      await send(input),
      401,
      { type: 'authentication_error', code: 'invalid_api_key' },
      'for its retry with the key revoked',
    )
  },
}

/** Objects of each list the walk runs over before it starts. */
const WALKED = 5

/**
 * A cursor names an object, not a position (docs/decisions/008-lists-and-idempotency.md): an object created while a
 * client pages (the newest, so it sorts first) moves nothing after the cursor. Each list gets five objects a
 * second before the walk; the walk reads two a page, and before each page after the first one more object is
 * made; every page holds the objects after the cursor in the list as it was. Then `ending_before` the newest
 * object of the start gives exactly the objects made during the walk, `has_more` false.
 */
function createdMidWalk(id: string, kinds: typeof DELETABLE, needs: ContractCheck['needs']): ContractCheck {
  return {
    id,
    area: 'resources',
    group: 'Pagination',
    title: `pages on from the cursor's object while newer objects are made (${kinds.map((k) => k.what).join(', ')})`,
    needs,
    async run(ctx) {
      const own = await ownAccount(ctx, 'created mid-walk')
      const lists: { what: string; collection: string; ids: string[]; make: () => Promise<string> }[] = []
      for (const { what, make } of kinds) {
        const paths: string[] = []
        for (let i = 0; i < WALKED; i++) paths.push(await make(ctx, own))
        const collection = (paths[0] as string).split('/').slice(0, -1).join('/')
        // Newest first: made later, listed earlier (ties in the second do not matter: all before the wait).
        const listed = await own.send({ method: 'GET', path: `${collection}?limit=100` })
        expectStatus(listed, 200)
        const ids = listData(listed).map((item) => String(item.id))
        lists.push({ what, collection, ids, make: () => make(ctx, own) })
      }
      await ctx.wait(
        1,
        'a second to pass, so that objects made during the walk are newer than those before it',
      )
      for (const { what, collection, ids, make } of lists) {
        let cursor: string | undefined
        const madeSince: string[] = []
        for (let at = 0; at < ids.length; at += 2) {
          if (cursor) madeSince.push(String((await make()).split('/').at(-1)))
          const page = await own.send({
            method: 'GET',
            path: `${collection}?limit=2${cursor ? `&starting_after=${cursor}` : ''}`,
          })
          expectStatus(page, 200)
          const got = listData(page).map((item) => String(item.id))
          const want = ids.slice(at, at + 2)
          ensure(
            got.join() === want.join(),
            `the page of ${what} after ${cursor ?? 'the start'} to hold ${want.join(', ')}, whatever was made since`,
            got.join(', ') || '(empty)',
            page,
          )
          cursor = got.at(-1)
          if (!cursor) break
        }
        // And back toward the newest: before the newest object of the walk's start come exactly the objects made
        // since (in the list's order, which the pagination checks read), however soon after the walk's pages.
        const back = await own.send({
          method: 'GET',
          path: `${collection}?limit=100&ending_before=${ids[0]}`,
        })
        expectStatus(back, 200)
        const newer = listData(back)
          .map((item) => String(item.id))
          .sort()
        const want = [...madeSince].sort()
        ensure(
          newer.join() === want.join() && jsonObject(back).has_more === false,
          `the objects made during the walk (${want.join(', ')}) before ${ids[0]}, and has_more false`,
          `${newer.join(', ') || '(empty)'}, has_more ${String(jsonObject(back).has_more)}`,
          back,
        )
      }
    },
  }
}

/**
 * A cursor naming an object removed since its page (a client that removes objects while it walks a list): the
 * contract's StartingAfter makes it 400 `invalid_cursor` (no longer an object of the collection), and a page that
 * goes on from where the object was holds only the objects after it; never the list again from its start.
 */
const removedCursor: ContractCheck = {
  id: 'resources/pagination/removed-cursor',
  area: 'resources',
  group: 'Pagination',
  title:
    'answers a cursor naming a removed object with 400 invalid_cursor or the objects after it, never the list from its start',
  needs: ['write'],
  async run(ctx) {
    const own = await ownAccount(ctx, 'removed cursor')
    for (const { what, make } of DELETABLE) {
      const paths: string[] = []
      for (let i = 0; i < 3; i++) paths.push(await make(ctx, own))
      const collection = (paths[0] as string).split('/').slice(0, -1).join('/')
      const listed = await own.send({ method: 'GET', path: `${collection}?limit=100` })
      expectStatus(listed, 200)
      const ids = listData(listed).map((item) => String(item.id))
      // One of the check's own objects with another before it (the owner, made in the same second, may sort anywhere).
      const mine = paths.map((path) => path.split('/').at(-1))
      const at = ids.findIndex((id, i) => i > 0 && mine.includes(id))
      const removed = ids[at] as string
      expectStatus(
        await own.send({ method: 'DELETE', path: `${collection}/${removed}` }),
        200,
        `removing ${what}`,
      )
      const page = await own.send({
        method: 'GET',
        path: `${collection}?limit=100&starting_after=${removed}`,
      })
      if (page.response.status === 400) {
        expectError(page, 400, { code: 'invalid_cursor' }, `for starting_after=${removed}, removed since`)
        continue
      }
      expectStatus(page, 200, `for starting_after=${removed}, removed since`)
      const got = listData(page).map((item) => String(item.id))
      ensure(
        got.join() === ids.slice(at + 1).join(),
        `400 invalid_cursor, or the objects after ${removed} in the list (${ids.slice(at + 1).join(', ') || 'none'})`,
        got.join(', ') || '(empty)',
        page,
      )
    }
  },
}

/** The mock's limits per account (the contract's Conflict: "the mock: 1,000 agents and 200 team members"). */
const LIMITED: { what: string; collection: string; body: (ctx: CheckContext) => Record<string, unknown> }[] =
  [
    { what: 'team members', collection: '/team-members', body: (ctx) => inviteBody(ctx) },
    { what: 'agents', collection: '/agents', body: (ctx) => agentBody(ctx) },
  ]
/** Creates sent at once while filling an account up. */
const FILL_AT_ONCE = 25
/** Far more than any limit of the mock: the check stops filling at the first 409 or here. */
const FILL_AT_MOST = 1_100

/**
 * The limit of objects per account counts what the account holds now: filled up to its first 409
 * `limit_reached`, an account that deletes one object may make one more, and then is refused again. For team
 * members and agents, on an account of the check's own with its rate limits lifted.
 */
const limitAfterRemoval: ContractCheck = {
  id: 'resources/deletes/limit-after-removal',
  area: 'resources',
  group: 'Deletes',
  title:
    'counts what an account holds now against its limits: after a removal at the limit, one more is created, then 409 limit_reached again',
  needs: ['write'],
  async run(ctx) {
    const { mock, account, send } = await ownAccount(ctx, 'limits')
    await mock.updateAccount(account.id, { limits: { hourly: 100_000_000, burst: 100_000_000 } })
    for (const { what, collection, body } of LIMITED) {
      // The account goes in teardown with all it holds: none of its objects is removed one by one.
      const create = async () => {
        const answer = await send({ method: 'POST', path: collection, json: body(ctx) })
        const id = (answer.response.json as { id?: unknown } | undefined)?.id
        if (typeof id === 'string') ctx.untrack(`${collection}/${id}`)
        return answer
      }
      let made: string[] = []
      let refused: Awaited<ReturnType<typeof create>> | undefined
      while (!refused && made.length < FILL_AT_MOST) {
        const answers = await inOrder(Array.from({ length: FILL_AT_ONCE }, create))
        for (const answer of answers) {
          if (answer.response.status === 409) refused ??= answer
          else expectStatus(answer, 201, `creating ${what} before the limit`)
        }
        made = made.concat(
          answers.filter((a) => a.response.status === 201).map((a) => String(jsonObject(a).id)),
        )
      }
      if (!refused) return ctx.skip(`no limit on ${what} within ${FILL_AT_MOST} (the mock keeps fewer)`)
      expectError(
        refused,
        409,
        { type: 'conflict_error', code: 'limit_reached' },
        `for ${what} past the limit`,
      )
      expectStatus(
        await send({ method: 'DELETE', path: `${collection}/${made.at(-1)}` }),
        200,
        `removing one of the ${what}`,
      )
      expectStatus(await create(), 201, `for one more of the ${what} after one was removed at the limit`)
      expectError(
        await create(),
        409,
        { type: 'conflict_error', code: 'limit_reached' },
        `for the next of the ${what}, at the limit again`,
      )
    }
  },
}

/**
 * A deleted agent's call logs are kept (the contract's deleteAgent: "they keep its `agent_id` and still appear in
 * lists and analytics"): after the delete, its call log is read by ID, listed when the list is filtered by the
 * deleted agent's ID, and counted by analytics filtered by it ("no existence check").
 */
const deletedAgentsCalls: ContractCheck = {
  id: 'resources/deletes/agent-call-logs-kept',
  area: 'resources',
  group: 'Deletes',
  title:
    "keeps a deleted agent's call logs: read by ID, listed and counted when filtered by the deleted agent's ID",
  needs: ['write', 'simulated-calls'],
  async run(ctx) {
    const own = await ownAccount(ctx, 'deleted agent')
    const { send } = own
    const path = await CALL_LOG.make(ctx, own)
    const log = await send({ method: 'GET', path })
    expectStatus(log, 200, 'reading the call log of a call just placed')
    const agent = String(jsonObject(log).agent_id)
    expectStatus(await send({ method: 'DELETE', path: `/agents/${agent}` }), 200, 'deleting the agent')
    const after = await send({ method: 'GET', path })
    expectStatus(after, 200, 'reading the call log of the deleted agent')
    ensure(
      jsonObject(after).agent_id === agent,
      `agent_id ${agent} kept`,
      String(jsonObject(after).agent_id),
      after,
    )
    const listed = await send({ method: 'GET', path: `/call-logs?agent_id=${agent}` })
    expectStatus(listed, 200, "for the list filtered by the deleted agent's ID")
    const id = path.split('/').at(-1)
    ensure(
      listData(listed).some((item) => item.id === id),
      `${id} listed when filtered by its deleted agent ${agent}`,
      listData(listed)
        .map((item) => String(item.id))
        .join(', ') || '(empty)',
      listed,
    )
    const created = Date.parse(String(jsonObject(after).created_at))
    const query = `start=${new Date(created - 60_000).toISOString()}&end=${new Date(created + 60_000).toISOString()}&granularity=total&agent_id=${agent}`
    const counted = await send({ method: 'GET', path: `/analytics/calls?${query}` })
    expectStatus(counted, 200, "for analytics filtered by the deleted agent's ID")
    const totals = (jsonObject(counted) as { totals?: { call_count?: unknown } }).totals
    ensure(
      totals?.call_count === 1,
      "call_count 1 for the deleted agent's call",
      String(totals?.call_count),
      counted,
    )
  },
}

/** What a key's value looks like (docs/decisions/003-api-keys.md): its type's prefix and 32 or more base62 characters. */
const KEY_FORMS = { secret: /^sk-svc-[A-Za-z0-9]{32,}$/, publishable: /^pk-svc-[A-Za-z0-9]{32,}$/ }

/** Keys of every kind the control plane makes: plain, with a list of scopes, with a group, restricted, publishable. */
const ISSUED: {
  type: 'secret' | 'publishable'
  permissions?: string[]
  restrictions?: Record<string, unknown>
}[] = [
  { type: 'secret' },
  { type: 'secret', permissions: ['agents:read', 'call_logs:read'] },
  { type: 'secret', permissions: ['read'] },
  { type: 'secret', permissions: [] },
  { type: 'secret', restrictions: { allowed_origins: ['https://contract-suite.example'] } },
  { type: 'publishable' },
]

/**
 * Every key issued has its type's form (the spec: `sk-svc-` or `pk-svc-` followed by at least 32 base62 characters
 * from a CSPRNG), whatever it was made with: keys of every kind made through the control plane, and the run's own.
 */
const issuedKeyForms: ContractCheck = {
  id: 'authentication/issued-key-forms',
  area: 'authentication',
  group: 'Keys',
  title: "issues every kind of key in its type's form: sk-svc- or pk-svc- and 32 or more base62 characters",
  async run(ctx) {
    const own = ctx.keys
    for (const [what, value, form] of [
      ['the secret key', own.secret, KEY_FORMS.secret],
      ['the publishable key', own.publishable, KEY_FORMS.publishable],
    ] as const)
      if (value)
        ensure(form.test(value), `${what} of the run in its type's form`, value.slice(0, 7), undefined)
    const mock = ctx.mock
    if (!mock) return ctx.skip('needs keys made through the mock control plane (--provision mock)')
    const { account, name } = await scratchAccount(ctx, mock, 'key forms')
    for (const input of ISSUED) {
      const made = await mock.createKey(account.id, { name, ...input })
      const what = JSON.stringify(input)
      ensure(
        KEY_FORMS[input.type].test(made.value),
        `a ${input.type} key made with ${what} in its type's form (${KEY_FORMS[input.type].source})`,
        `${made.value.slice(0, 7)}... of ${made.value.length} characters${/[^A-Za-z0-9]/.test(made.value.slice(7)) ? ', not all base62' : ''}`,
      )
    }
  },
}

/**
 * A dead key is refused as dead before anything else is said about it (docs/decisions/005-order-of-checks.md: 401
 * first): a revoked key restricted to an origin, sent from another origin, is 401, not 403 `key_restricted`.
 */
const deadBeforeRestricted: ContractCheck = {
  id: 'authentication/dead-before-restricted',
  area: 'authentication',
  group: 'Order of checks',
  title:
    'answers 401 to a revoked key restricted to an origin, sent from another origin (not 403 key_restricted)',
  async run(ctx) {
    const mock = ctx.mock
    if (!mock) return ctx.skip('needs keys made through the mock control plane (--provision mock)')
    const { account, name } = await scratchAccount(ctx, mock, 'dead and restricted')
    const made = await mock.createKey(account.id, {
      type: 'secret',
      name,
      restrictions: { allowed_origins: ['https://contract-suite-allowed.example'] },
    })
    await mock.revokeKey(made.id)
    expectError(
      await ctx.call({
        method: 'GET',
        path: '/user',
        key: made.value,
        sensitive: [made.value],
        headers: { origin: 'https://contract-suite-elsewhere.example' },
        operationId: 'getUser',
      }),
      401,
      { type: 'authentication_error', code: 'invalid_api_key' },
      'for a revoked key restricted to another origin',
    )
  },
}

/**
 * A write-only field is never returned, refused values included (the contract's updateIntegration: "Credentials
 * are never returned, in this or any other response"): credentials too short and too long, each value of its own,
 * are 422 and neither value is in any part of the answer.
 */
const refusedCredentials: ContractCheck = {
  id: 'bad-input/refused-credentials-not-echoed',
  area: 'bad-input',
  group: 'updateIntegration',
  title: 'never shows a refused credential (too short, too long) in its 422',
  needs: ['write'],
  async run(ctx) {
    for (const value of ['Q7rT2zP', `Lk9${'Wm4Xv8'.repeat(683)}`]) {
      const answer = await ctx.call({
        method: 'PATCH',
        path: '/integrations/slack',
        json: { credentials: { token: value } },
        operationId: 'updateIntegration',
      })
      expectStatus(answer, 422, `for a credential of ${value.length} characters`)
      ensure(
        !`${answer.response.text}\n${Object.values(answer.response.headers).join('\n')}`.includes(value),
        `the refused credential of ${value.length} characters in no part of the 422`,
        'echoed',
        answer,
      )
    }
  },
}

/** Changes seen on the next request. */
export const afterChangeChecks: ContractCheck[] = [
  planChange,
  headAfterDelete('resources/deletes/head-after-delete', DELETABLE, ['write']),
  headAfterDelete('resources/deletes/head-after-delete-call-log', [CALL_LOG], ['write', 'simulated-calls']),
  createdMidWalk('resources/pagination/created-mid-walk', DELETABLE, ['write']),
  removedCursor,
  createdMidWalk('resources/pagination/created-mid-walk-call-logs', [CALL_LOG], ['write', 'simulated-calls']),
  manyKeys,
  defaultsAnotherBody,
  revokedRetry,
  limitAfterRemoval,
  deletedAgentsCalls,
  issuedKeyForms,
  deadBeforeRestricted,
  refusedCredentials,
]

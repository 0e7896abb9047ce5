import type { Exchange } from '../http/exchange.ts'
import { madeAt, ownAccount } from './after-changes.ts'
import { ensure, expectError, expectStatus, inOrder, jsonObject, listData } from './failure.ts'
import { agentBody, inviteBody } from './fixtures.ts'
import { iso } from './formats.ts'
import type { CheckCallInput, ContractCheck } from './types.ts'

/**
 * Requests in flight together. Each request is one operation on the platform's state, carried out whole or not
 * at all: whatever order requests sent at once are carried out in, every answer, and the state after them all,
 * is one that some serial order of the same requests gives (docs/decisions/014-state.md: "one `Idempotency-Key`
 * creates one object"; an acknowledged write is kept). Each check runs on an account of its own.
 */

const group = 'Requests at once'
type Own = Awaited<ReturnType<typeof ownAccount>>

const idOf = (exchange: Exchange) => String(jsonObject(exchange).id)
const ok = (exchange: Exchange) => exchange.response.status >= 200 && exchange.response.status < 300

/** Creates an object in `collection` on the check's own account: its ID. */
const made = async (own: Own, collection: string, json: Record<string, unknown>) =>
  String((await madeAt(own, collection, json)).split('/').at(-1))

const read = (own: Own, path: string) => own.send({ method: 'GET', path })

/** Two deletes of one object sent at once: one deletes it (200), the other finds nothing (404). */
function expectOneDeleted(deletes: readonly Exchange[], what: string): void {
  const statuses = deletes.map((d) => d.response.status).sort()
  ensure(
    statuses.join() === '200,404',
    `one of two deletes of ${what} sent at once to delete it (200), the other to find nothing (404)`,
    statuses.join(', '),
    deletes[1] as Exchange,
  )
}

/**
 * The same create with the same Idempotency-Key, three times at once (a client retrying at once after a reset,
 * two tabs submitting one form): one agent, and every answer that is not a refusal names it.
 */
const sameKeyAtOnce: ContractCheck = {
  id: 'resources/concurrency/same-key-creates',
  area: 'resources',
  group,
  title: 'creates one agent for three creates sent at once with one Idempotency-Key, every 2xx naming it',
  needs: ['write'],
  async run(ctx) {
    const own = await ownAccount(ctx, 'same key at once')
    const body = agentBody(ctx)
    const input: CheckCallInput = {
      method: 'POST',
      path: '/agents',
      json: body,
      headers: { 'idempotency-key': `contract-${ctx.runId}-${crypto.randomUUID()}` },
    }
    const answers = await inOrder([own.send(input), own.send(input), own.send(input)])
    const ids = new Set(answers.filter(ok).map(idOf))
    ensure(
      ids.size === 1,
      'every 2xx answer naming one agent (the contract, Idempotency: a retry creates nothing again)',
      `${ids.size} agents: ${[...ids].join(', ')} (${answers.map((a) => a.response.status).join(', ')})`,
      answers[1] as Exchange,
    )
    const list = await own.send({ method: 'GET', path: '/agents?limit=100' })
    const copies = listData(list).filter((agent) => agent.name === body.name)
    ensure(copies.length === 1, `one agent named ${String(body.name)} in the list`, `${copies.length}`, list)
  },
}

/**
 * Two creates at once, each with a key of its own: each key keeps its own answer, so a retry of each replays the
 * agent its first request created.
 */
const twoKeysAtOnce: ContractCheck = {
  id: 'resources/concurrency/two-keys-at-once',
  area: 'resources',
  group,
  title:
    'keeps each Idempotency-Key with its own answer for two creates sent at once: each retry replays its agent',
  needs: ['write'],
  async run(ctx) {
    const own = await ownAccount(ctx, 'two keys at once')
    const inputs = [0, 1].map(
      (i): CheckCallInput => ({
        method: 'POST',
        path: '/agents',
        json: agentBody(ctx),
        headers: { 'idempotency-key': `contract-${ctx.runId}-${i}-${crypto.randomUUID()}` },
      }),
    )
    const firsts = await inOrder(inputs.map((input) => own.send(input)))
    for (const first of firsts) expectStatus(first, 201, 'for a create with a key of its own')
    for (const [i, input] of inputs.entries()) {
      const retry = await own.send(input)
      const first = firsts[i] as Exchange
      ensure(
        retry.response.status === 201 && idOf(retry) === idOf(first),
        `the retry with key ${i + 1} to replay its own agent ${idOf(first)}`,
        `${retry.response.status} ${String(jsonObject(retry).id)}`,
        retry,
      )
    }
  },
}

/**
 * A PATCH and a DELETE of one agent at once: if the DELETE says the agent is deleted, it is, whatever the PATCH
 * did; two DELETEs of one team member at once: one removes it, the other finds nothing (404).
 */
const writesThatMeet: ContractCheck = {
  id: 'resources/concurrency/update-and-delete',
  area: 'resources',
  group,
  title:
    'keeps an acknowledged delete when an update of the same agent comes at once, and answers one of two deletes at once 404',
  needs: ['write'],
  async run(ctx) {
    const own = await ownAccount(ctx, 'update and delete')
    const agent = await made(own, '/agents', agentBody(ctx))
    const [, deleted] = await inOrder([
      own.send({ method: 'PATCH', path: `/agents/${agent}`, json: { name: `${ctx.runId} renamed` } }),
      own.send({ method: 'DELETE', path: `/agents/${agent}` }),
    ])
    if (ok(deleted)) {
      const after = await read(own, `/agents/${agent}`)
      expectError(after, 404, { code: 'resource_not_found' }, 'for the agent whose delete was answered 200')
    }
    const member = await made(own, '/team-members', inviteBody(ctx))
    const removals = await inOrder([
      own.send({ method: 'DELETE', path: `/team-members/${member}` }),
      own.send({ method: 'DELETE', path: `/team-members/${member}` }),
    ])
    expectOneDeleted(removals, 'the same member')
  },
}

/**
 * Two updates of one agent at once, each of its own fields, then two of its metadata: the first two are both
 * kept (each names its fields only), and `metadata`, which an update replaces whole, is one of the two maps sent.
 */
const updatesAtOnce: ContractCheck = {
  id: 'resources/concurrency/updates-at-once',
  area: 'resources',
  group,
  title:
    'keeps both of two updates of different fields sent at once, and replaces metadata by one of two sent at once, never a merge',
  needs: ['write'],
  async run(ctx) {
    const own = await ownAccount(ctx, 'updates at once')
    const agent = await made(own, '/agents', agentBody(ctx))
    const name = `${ctx.runId} at once`
    const description = 'Two updates at once'
    const patched = await inOrder([
      own.send({ method: 'PATCH', path: `/agents/${agent}`, json: { name } }),
      own.send({ method: 'PATCH', path: `/agents/${agent}`, json: { description } }),
    ])
    for (const each of patched) expectStatus(each, 200, 'for an update of one field')
    const after = jsonObject(await read(own, `/agents/${agent}`))
    ensure(
      after.name === name && after.description === description,
      `name ${name} and description ${description}: both updates kept`,
      `${String(after.name)}, ${String(after.description)}`,
      patched[1] as Exchange,
    )
    // An integration the same way: its configuration and its switch, changed at once, both kept.
    const config = { channel: '#contract-at-once' }
    expectStatus(await read(own, '/integrations/slack'), 200, 'for the integration before the updates')
    const switched = await inOrder([
      own.send({ method: 'PATCH', path: '/integrations/slack', json: { config } }),
      own.send({ method: 'PATCH', path: '/integrations/slack', json: { enabled: false } }),
    ])
    for (const each of switched) expectStatus(each, 200, 'for an update of the integration')
    const integration = jsonObject(await read(own, '/integrations/slack'))
    ensure(
      JSON.stringify(integration.config) === JSON.stringify(config) && integration.enabled === false,
      `config ${JSON.stringify(config)} and enabled false: both updates kept`,
      `${JSON.stringify(integration.config)}, ${String(integration.enabled)}`,
      switched[1] as Exchange,
    )
    const maps = [{ contract_first: 'a' }, { contract_second: 'b' }]
    await inOrder(
      maps.map((metadata) => own.send({ method: 'PATCH', path: `/agents/${agent}`, json: { metadata } })),
    )
    const final = await read(own, `/agents/${agent}`)
    const metadata = JSON.stringify(jsonObject(final).metadata)
    ensure(
      maps.some((map) => JSON.stringify(map) === metadata),
      `metadata ${maps.map((m) => JSON.stringify(m)).join(' or ')}: an update replaces it whole`,
      metadata,
      final,
    )
  },
}

/**
 * Reads and writes of team members at once: three members read at once each answer with the member of its path,
 * a role change sent beside an invitation changes the role, and two removals at once each name their member.
 */
const membersAtOnce: ContractCheck = {
  id: 'resources/concurrency/members-at-once',
  area: 'resources',
  group,
  title:
    'answers each of three member reads sent at once (in both orders of their IDs) with its own member, changes a role beside an invitation, and names each of two removals',
  needs: ['write'],
  async run(ctx) {
    const own = await ownAccount(ctx, 'members at once')
    const members = [
      await made(own, '/team-members', inviteBody(ctx)),
      await made(own, '/team-members', inviteBody(ctx)),
      await made(own, '/team-members', inviteBody(ctx)),
    ]
    // Read at once in one order of their IDs and then in the other.
    for (const order of [[...members].sort(), [...members].sort().reverse()]) {
      const reads = await inOrder(order.map((id) => read(own, `/team-members/${id}`)))
      for (const [i, answer] of reads.entries())
        ensure(
          answer.response.status === 200 && idOf(answer) === order[i],
          `GET /team-members/${order[i]} to answer that member`,
          `${answer.response.status} ${String(jsonObject(answer).id)}`,
          answer,
        )
    }
    const [, changed] = await inOrder([
      own.send({ method: 'POST', path: '/team-members', json: inviteBody(ctx) }),
      own.send({ method: 'PATCH', path: `/team-members/${members[0]}`, json: { role: 'viewer' } }),
    ])
    expectStatus(changed, 200, 'for a role change sent beside an invitation')
    const removed = await inOrder(
      members.slice(1).map((id) => own.send({ method: 'DELETE', path: `/team-members/${id}` })),
    )
    for (const [i, answer] of removed.entries())
      ensure(
        idOf(answer) === members[i + 1],
        `the removal of ${members[i + 1]} to name it`,
        String(jsonObject(answer).id),
        answer,
      )
  },
}

/**
 * A read sent with an update is the object before it or after it, never half of each: an agent's name and voice
 * changed together, and an integration connected with credentials (its status, hint and `connected_at` together).
 */
const readsBesideWrites: ContractCheck = {
  id: 'resources/concurrency/reads-beside-writes',
  area: 'resources',
  group,
  title:
    'answers a read sent with an update with the object before or after it, never half of each (an agent, an integration)',
  needs: ['write'],
  async run(ctx) {
    const own = await ownAccount(ctx, 'reads beside writes')
    const agent = await made(own, '/agents', agentBody(ctx))
    const before = jsonObject(await read(own, `/agents/${agent}`))
    const change = { name: `${ctx.runId} torn`, voice: { speed: 1.5 } }
    const [patched, ...reads] = await inOrder([
      own.send({ method: 'PATCH', path: `/agents/${agent}`, json: change }),
      read(own, `/agents/${agent}`),
      read(own, `/agents/${agent}`),
    ])
    expectStatus(patched, 200, 'for an update of the name and the voice')
    const after = jsonObject(patched)
    for (const answer of reads) {
      const text = JSON.stringify(jsonObject(answer))
      ensure(
        [before, after].some((whole) => JSON.stringify(whole) === text),
        'the agent as it was before the update, or as the update answered it',
        text.slice(0, 300),
        answer,
      )
    }
    const secret = `contract-${ctx.runId}-AtOnceCredential7Qx`
    expectStatus(await read(own, '/integrations/slack'), 200, 'for the integration before it is connected')
    const [connected, ...integrations] = await inOrder([
      own.send({
        method: 'PATCH',
        path: '/integrations/slack',
        json: { credentials: { bot_token: secret } },
        sensitive: [secret],
      }),
      read(own, '/integrations/slack'),
      read(own, '/integrations/slack'),
    ])
    expectStatus(connected, 200, 'for credentials of a new connection')
    for (const answer of integrations) {
      const body = jsonObject(answer)
      const whole =
        body.status === 'connected'
          ? body.credential_hint === `...${secret.slice(-4)}` && typeof body.connected_at === 'string'
          : body.credential_hint === null && body.connected_at === null
      ensure(
        whole,
        'the integration not connected (no hint, no connected_at) or connected with the new hint and connected_at',
        `${String(body.status)}, ${JSON.stringify(body.credential_hint)}, ${JSON.stringify(body.connected_at)}`,
        answer,
      )
    }
  },
}

/**
 * Two deletes of one call log at once (a call placed through the control plane): one deletes it, one finds
 * nothing; analytics read beside them add up.
 */
const callLogDeletes: ContractCheck = {
  id: 'resources/concurrency/call-log-deletes',
  area: 'resources',
  group,
  title:
    'answers one of two deletes of the same call log sent at once 200, the other 404, and analytics read beside them add up',
  needs: ['write', 'simulated-calls'],
  async run(ctx) {
    const own = await ownAccount(ctx, 'call log deletes')
    const agent = await made(own, '/agents', agentBody(ctx))
    const call = await own.mock.placeCall(own.account.id, {
      agent_id: agent,
      ring_seconds: 1,
      duration_seconds: 5,
    })
    const path = `/call-logs/${String(call.id)}`
    // An hour up to a second after the call (the contract lets `end` lie ahead; only `start` may not).
    const created = Date.parse(String(call.created_at))
    const range = `start=${iso(created - 3_600_000)}&end=${iso(created + 1000)}`
    // Analytics read beside them over a range that holds the call: its totals add up from its series whether they
    // count the call log or not (every analytics answer's conformance).
    const [first, second] = await inOrder([
      own.send({ method: 'DELETE', path }),
      own.send({ method: 'DELETE', path }),
      own.send({ method: 'GET', path: `/analytics/calls?${range}` }),
    ])
    expectOneDeleted([first, second], 'the same call log')
  },
}

/** Two role changes of one member, one right after the other: the second is the one kept. */
const roleChanges: ContractCheck = {
  id: 'resources/concurrency/role-changes-in-a-row',
  area: 'resources',
  group,
  title: 'keeps the second of two role changes sent one right after the other (the same second)',
  needs: ['write'],
  async run(ctx) {
    const own = await ownAccount(ctx, 'role changes')
    const member = await made(own, '/team-members', inviteBody(ctx, { role: 'viewer' }))
    for (const role of ['admin', 'editor'])
      expectStatus(
        await own.send({ method: 'PATCH', path: `/team-members/${member}`, json: { role } }),
        200,
        `for role ${role}`,
      )
    const after = await read(own, `/team-members/${member}`)
    ensure(
      jsonObject(after).role === 'editor',
      'role editor, the last one sent',
      String(jsonObject(after).role),
      after,
    )
  },
}

export const concurrencyChecks: ContractCheck[] = [
  sameKeyAtOnce,
  twoKeysAtOnce,
  writesThatMeet,
  updatesAtOnce,
  membersAtOnce,
  readsBesideWrites,
  callLogDeletes,
  roleChanges,
]

import type { Exchange } from '../http/exchange.ts'
import { ensure, expectError, expectStatus, jsonObject } from './failure.ts'
import { inviteBody, inviteMember } from './fixtures.ts'
import { listAll } from './lists.ts'
import type { CheckContext, ContractCheck } from './types.ts'

/** `Aa1` -> `aA1`: the same key with the case of every letter swapped. */
const swapCase = (value: string) =>
  value.replace(/[A-Za-z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()))

const getUser = (ctx: CheckContext, authorization: string, sensitive: string[] = []) =>
  ctx.call({ method: 'GET', path: '/user', key: null, authorization, sensitive, operationId: 'getUser' })

/**
 * The scheme name is case-insensitive (RFC 9110, docs/decisions/002-authentication.md; authentication/scheme-case), the key
 * is not: a key with its letters' case changed, a scheme with a letter more, and a scheme glued to the key
 * are refused.
 */
const schemeAndKeyCase: ContractCheck = {
  id: 'authentication/case-both-ways',
  area: 'authentication',
  group: 'GET /user',
  title:
    'matches the key exactly: refuses it with the case of its letters changed, after "Bearerx" or glued to "Bearer:"',
  async run(ctx) {
    const key = ctx.keys.secret
    // The scheme in any case is accepted: authentication/scheme-case (`bEARER`).
    // The key with the case of every letter swapped is refused by any comparison that ignores case, whether it
    // lower-cases, upper-cases or folds the prefix alone.
    const variants: [string, string][] = [
      [`Bearer ${swapCase(key)}`, 'the key with the case of its letters swapped'],
      [`Bearerx ${key}`, 'the scheme "Bearerx"'],
      [`Bearer:${key}`, 'the scheme glued to the key with a colon'],
    ]
    for (const [authorization, what] of variants) {
      expectError(
        await getUser(ctx, authorization, [key, swapCase(key)]),
        401,
        { type: 'authentication_error', code: 'invalid_api_key' },
        `for ${what}`,
      )
    }
  },
}

function expectTaken(exchange: Exchange, email: string): void {
  expectError(
    exchange,
    409,
    { type: 'conflict_error', code: 'member_already_exists', param: 'email' },
    `for ${email}`,
  )
}

/**
 * E-mail addresses are unique per account case-insensitively and stored lower-cased: probed both ways
 * (an address invited in lower case, then in other cases; the owner's address in upper case), and an
 * address is free again once its member is removed.
 */
const emailCase: ContractCheck = {
  id: 'resources/team-members/email-case',
  area: 'resources',
  group: 'Team members',
  title:
    'treats e-mail addresses case-insensitively both ways (lower then upper, mixed, the owner) and frees one when its member is removed',
  needs: ['write'],
  async run(ctx) {
    const { member } = await inviteMember(ctx)
    const email = String(member.email)
    ensure(email === email.toLowerCase(), 'the e-mail stored lower-cased', email, undefined)
    const [local = '', domain = ''] = email.split('@')
    const mixed = `${local.slice(0, 1).toUpperCase()}${local.slice(1)}@${domain.toUpperCase()}`
    for (const variant of [email.toUpperCase(), mixed])
      expectTaken(
        await ctx.call({
          method: 'POST',
          path: '/team-members',
          json: inviteBody(ctx, { email: variant }),
          operationId: 'inviteTeamMember',
        }),
        variant,
      )
    const all = await listAll(ctx, '/team-members', { operationId: 'listTeamMembers' })
    const owner = all.items.find((m) => m.role === 'owner')
    if (owner)
      expectTaken(
        await ctx.call({
          method: 'POST',
          path: '/team-members',
          json: inviteBody(ctx, { email: String(owner.email).toUpperCase() }),
          operationId: 'inviteTeamMember',
        }),
        "the owner's address in upper case",
      )
    const path = `/team-members/${String(member.id)}`
    expectStatus(await ctx.call({ method: 'DELETE', path, operationId: 'removeTeamMember' }), 200)
    ctx.untrack(path)
    const again = await ctx.call({
      method: 'POST',
      path: '/team-members',
      json: inviteBody(ctx, { email: email.toUpperCase() }),
      operationId: 'inviteTeamMember',
    })
    expectStatus(again, 201, 'for the address of a removed member, in upper case')
    ensure(
      jsonObject(again).email === email,
      `the address stored lower-cased (${email})`,
      String(jsonObject(again).email),
      again,
    )
  },
}

/** Case and normalisation rules probed in both directions. */
export const normalisationChecks: ContractCheck[] = [schemeAndKeyCase, emailCase]

import { expectFields } from './agents.ts'
import { ensure, expectError, expectStatus, fail, jsonObject } from './failure.ts'
import { inviteBody, inviteMember, UNKNOWN_IDS } from './fixtures.ts'
import { locates, sameInstant } from './formats.ts'
import { listAll } from './lists.ts'
import type { CheckContext, ContractCheck } from './types.ts'

const group = 'Team members'

async function owner(ctx: CheckContext) {
  const all = await listAll(ctx, '/team-members', { operationId: 'listTeamMembers' })
  const owners = all.items.filter((m) => m.role === 'owner')
  if (owners.length !== 1) fail('exactly one owner among the team members', `${owners.length}`, all.pages[0])
  return { owner: owners[0] as Record<string, unknown>, all }
}

/** Team members: the owner rules, invitations, role changes and removal. */
export const teamMemberChecks: ContractCheck[] = [
  {
    id: 'resources/team-members/owner-listed',
    area: 'resources',
    group,
    title: 'lists exactly one owner, the oldest member, last',
    async run(ctx) {
      const { owner: found, all } = await owner(ctx)
      if (all.complete)
        ensure(
          all.items.at(-1)?.id === found.id,
          'the owner last (oldest first created)',
          String(all.items.at(-1)?.id),
          all.pages.at(-1),
        )
    },
  },
  {
    id: 'resources/team-members/owner-rules',
    area: 'resources',
    group,
    title:
      "refuses to change the owner's role (409 owner_role_immutable) or remove the owner (409 cannot_remove_owner)",
    needs: ['write', 'own-account'],
    async run(ctx) {
      const { owner: found } = await owner(ctx)
      const path = `/team-members/${String(found.id)}`
      const patch = await ctx.call({
        method: 'PATCH',
        path,
        json: { role: 'viewer' },
        operationId: 'updateTeamMember',
      })
      expectError(patch, 409, { type: 'conflict_error', code: 'owner_role_immutable' })
      const remove = await ctx.call({ method: 'DELETE', path, operationId: 'removeTeamMember' })
      expectError(remove, 409, { type: 'conflict_error', code: 'cannot_remove_owner' })
      const after = await ctx.call({ method: 'GET', path, operationId: 'getTeamMember' })
      expectStatus(after, 200)
      ensure(
        jsonObject(after).role === 'owner',
        'the owner still the owner',
        String(jsonObject(after).role),
        after,
      )
    },
  },
  {
    id: 'resources/team-members/invite',
    area: 'resources',
    group,
    title:
      'invites a member (201, invited, e-mail lower-cased), refuses the same e-mail (409) and the owner role (422)',
    needs: ['write'],
    async run(ctx) {
      const body = inviteBody(ctx, { role: 'editor' })
      const email = String(body.email)
      const created = await ctx.call({
        method: 'POST',
        path: '/team-members',
        json: { ...body, email: email.toUpperCase() },
        operationId: 'inviteTeamMember',
      })
      expectStatus(created, 201)
      const member = jsonObject(created)
      expectFields(member, { email, role: 'editor', status: 'invited', joined_at: null }, 'member', created)
      ensure(
        sameInstant(member.invited_at, member.created_at),
        'invited_at = created_at',
        `${String(member.invited_at)} vs ${String(member.created_at)}`,
        created,
      )
      const location = created.response.headers.location
      ensure(
        locates(location, created.request.url, `/team-members/${String(member.id)}`),
        'a Location (absolute or relative) of the new member',
        JSON.stringify(location ?? null),
        created,
      )
      const again = await ctx.call({
        method: 'POST',
        path: '/team-members',
        json: { email },
        operationId: 'inviteTeamMember',
      })
      expectError(again, 409, { type: 'conflict_error', code: 'member_already_exists', param: 'email' })
      const asOwner = await ctx.call({
        method: 'POST',
        path: '/team-members',
        json: inviteBody(ctx, { role: 'owner' }),
        operationId: 'inviteTeamMember',
      })
      expectError(asOwner, 422, { type: 'validation_error', code: 'validation_failed', param: 'role' })
    },
  },
  {
    id: 'resources/team-members/role-and-removal',
    area: 'resources',
    group,
    title: "changes a member's role, removes the member, then answers 404",
    needs: ['write'],
    async run(ctx) {
      const { member } = await inviteMember(ctx)
      const path = `/team-members/${String(member.id)}`
      const changed = await ctx.call({
        method: 'PATCH',
        path,
        json: { role: 'admin' },
        operationId: 'updateTeamMember',
      })
      expectStatus(changed, 200)
      expectFields(
        jsonObject(changed),
        { id: member.id, role: 'admin', email: member.email },
        'member',
        changed,
      )
      const read = await ctx.call({ method: 'GET', path, operationId: 'getTeamMember' })
      ensure(jsonObject(read).role === 'admin', 'the new role on GET', String(jsonObject(read).role), read)
      const removed = await ctx.call({ method: 'DELETE', path, operationId: 'removeTeamMember' })
      expectStatus(removed, 200)
      expectFields(
        jsonObject(removed),
        { id: member.id, object: 'team_member', deleted: true },
        'deleted',
        removed,
      )
      ctx.untrack(path)
      expectError(await ctx.call({ method: 'GET', path, operationId: 'getTeamMember' }), 404, {
        code: 'resource_not_found',
        param: 'member_id',
      })
      expectError(
        await ctx.call({
          method: 'GET',
          path: `/team-members/${UNKNOWN_IDS.member_id}`,
          operationId: 'getTeamMember',
        }),
        404,
        { code: 'resource_not_found' },
      )
    },
  },
]

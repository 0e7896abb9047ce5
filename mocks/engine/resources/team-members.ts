import { errors } from '../api-error.ts'
import type { Collection } from '../collection.ts'
import { assertRoom, LIMITS } from '../limits.ts'
import { newId } from '../random.ts'
import { type Handlers, type OperationContext, pathParam } from './operation-handler.ts'
import { listPage } from './pagination.ts'
import type { TeamMember } from './types.ts'

export const teamMembersOf = (ctx: OperationContext) => ctx.data.teamMembers as Collection<TeamMember>

function findMember(ctx: OperationContext): TeamMember {
  const member = teamMembersOf(ctx).get(pathParam(ctx, 'member_id'))
  if (!member) throw errors.resourceNotFound('team member', pathParam(ctx, 'member_id'), 'member_id')
  return member
}

/** Behaviour of the team-member operations, with the owner rules (the owner is never changed or removed). */
export function teamMemberHandlers(): Handlers {
  return {
    listTeamMembers: {
      run: (ctx) => ({
        status: 200,
        body: listPage(teamMembersOf(ctx), ctx.query, { present: (member) => ({ ...member }) }),
      }),
    },
    inviteTeamMember: {
      run(ctx) {
        const input = ctx.body as {
          email: string
          role: TeamMember['role']
          name?: string
        }
        const email = input.email.toLowerCase()
        assertRoom(teamMembersOf(ctx).size, LIMITS.teamMembersPerAccount, 'team members per account')
        if (
          teamMembersOf(ctx)
            .values()
            .some((member) => member.email === email)
        )
          throw errors.conflict(
            'member_already_exists',
            `${email} is already a member of this team.`,
            'email',
          )
        const now = ctx.clock.iso()
        const member: TeamMember = {
          id: newId('mem'),
          object: 'team_member',
          email,
          name: input.name ?? null,
          role: input.role,
          status: 'invited',
          invited_at: now,
          joined_at: null,
          created_at: now,
        }
        teamMembersOf(ctx).put(member)
        return {
          status: 201,
          body: { ...member },
          headers: { location: `${ctx.baseUrl}/team-members/${member.id}` },
        }
      },
    },
    getTeamMember: { load: findMember, run: (_ctx, member) => ({ status: 200, body: { ...member } }) },
    updateTeamMember: {
      load: findMember,
      run(ctx, member: TeamMember) {
        if (member.role === 'owner')
          throw errors.conflict('owner_role_immutable', "The owner's role cannot be changed.", 'role')
        const updated = { ...member, role: (ctx.body as { role: TeamMember['role'] }).role }
        teamMembersOf(ctx).put(updated)
        return { status: 200, body: { ...updated } }
      },
    },
    removeTeamMember: {
      load: findMember,
      run(ctx, member: TeamMember) {
        if (member.role === 'owner')
          throw errors.conflict(
            'cannot_remove_owner',
            'The owner cannot be removed from the team.',
            'member_id',
          )
        teamMembersOf(ctx).remove(member.id)
        return { status: 200, body: { id: member.id, object: 'team_member', deleted: true } }
      },
    },
  }
}

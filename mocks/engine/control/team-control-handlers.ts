import type { AccountStore } from '../accounts.ts'
import { errors } from '../api-error.ts'
import type { Clock } from '../clock.ts'
import { json } from '../json-answer.ts'
import type { AccountDataStore } from '../resources/account-data.ts'
import type { TeamMember } from '../resources/types.ts'
import type { ControlHandlers } from './control-handler.ts'

/** What the simulated invitee's side acts on. */
export interface TeamControlOptions {
  accounts: AccountStore
  data: AccountDataStore
  clock: Clock
}

/** The control plane's `joinTeamMember` (mock-control.yaml): an invited person accepts the invitation. */
export function teamControlHandlers(options: TeamControlOptions): ControlHandlers {
  const { accounts, data, clock } = options
  return {
    joinTeamMember({ params }) {
      const accountId = params.account_id ?? ''
      if (!accounts.get(accountId)) throw errors.resourceNotFound('account', accountId, 'account_id')
      const memberId = params.member_id ?? ''
      const members = data.get(accountId)?.teamMembers
      const member = members?.get(memberId)
      if (!members || !member) throw errors.resourceNotFound('team member', memberId, 'member_id')
      if (member.status !== 'invited')
        throw errors.conflict(
          'member_already_joined',
          `${memberId} has joined the team already.`,
          'member_id',
        )
      const joined: TeamMember = { ...member, status: 'active', joined_at: clock.iso() }
      members.put(joined)
      return json(200, { ...joined })
    },
  }
}

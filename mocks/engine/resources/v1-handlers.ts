import { agentHandlers } from './agents.ts'
import { analyticsHandlers } from './analytics.ts'
import { callLogHandlers } from './call-logs.ts'
import { integrationHandlers } from './integrations.ts'
import type { Handlers } from './operation-handler.ts'
import { teamMemberHandlers } from './team-members.ts'
import { userHandlers } from './user.ts'

/** The behaviour of every v1 operation, by operationId. */
export function v1Handlers(): Handlers {
  return {
    ...userHandlers(),
    ...agentHandlers(),
    ...callLogHandlers(),
    ...analyticsHandlers(),
    ...integrationHandlers(),
    ...teamMemberHandlers(),
  }
}

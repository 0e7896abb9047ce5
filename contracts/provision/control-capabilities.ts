import type { MockControl } from './mock-control.ts'

/**
 * The optional capabilities of a control plane (`openapi/mock-control.yaml`): what a target that offers the
 * mock's control plane may lack without being wrong. `simulated-calls`: placing calls
 * (`POST /accounts/{id}/calls`, docs/decisions/013-calls-and-webhooks.md).
 */
export type ControlCapability = 'simulated-calls'

/** Why each capability the control plane lacks is missing (absent: the control plane offers it). */
export type MissingCapabilities = ReadonlyMap<ControlCapability, string>

/**
 * Whether an answer says the route does not exist (as opposed to refusing this request on it): 404 other than
 * for a resource (`resource_not_found` names the account, which the run created), 405 (the path, not this
 * method) or 501.
 */
function absent(answer: { status: number; code?: string }): boolean {
  if (answer.status === 404) return answer.code !== 'resource_not_found'
  return answer.status === 405 || answer.status === 501
}

/**
 * Asks the control plane, once per run, which optional capabilities it offers. Each probe changes nothing:
 * `POST /accounts/{id}/calls` with an empty body is refused (422, no `agent_id`) where calls are placed, and
 * answered 404 `route_not_found` where they are not.
 */
export async function probeCapabilities(
  control: MockControl,
  accountId: string,
): Promise<MissingCapabilities> {
  const missing = new Map<ControlCapability, string>()
  const path = `/accounts/${accountId}/calls`
  const calls = await control.probe('POST', path, {})
  if (absent(calls))
    missing.set(
      'simulated-calls',
      `the target's control plane places no simulated calls (POST /_mock/accounts/{id}/calls answered ${calls.status}${calls.code ? ` ${calls.code}` : ''})`,
    )
  return missing
}

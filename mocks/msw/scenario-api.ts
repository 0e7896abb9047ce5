import type { components } from '../../openapi/generated/mock-control.types.ts'
import type { EngineRequest, EngineResponse } from '../engine/types.ts'

/** A scenario as the mock shows it (`GET /_mock/scenarios`). */
export type Scenario = components['schemas']['Scenario']
/** What a scenario is made of: `operation`, then `status`, `delay` and/or `network_error`, `times`, `probability`. */
export type ScenarioInput = components['schemas']['ScenarioCreateRequest']

/** An active scenario and the way to remove it. */
export interface ScenarioHandle extends Scenario {
  /** Removes the scenario; resolves false when it was already gone (used up, removed, reset). */
  remove(): Promise<boolean>
}

/** Scenarios in-process: the same operations as `/_mock/scenarios`, run by the engine behind the handlers. */
export interface ScenarioApi {
  /**
   * Adds a scenario (as `POST /_mock/scenarios`): e.g. `{ operation: 'listAgents', status: 500 }`,
   * `{ operation: '*', delay: { type: 'fixed', ms: 1500 } }`, `{ operation: '*', network_error: 'reset' }`.
   * Rejects with a `ScenarioError` naming the field when the input is invalid; nothing is stored then.
   */
  add(input: ScenarioInput): Promise<ScenarioHandle>
  /** The active scenarios, newest first, with their uses and what remains of their `times`. */
  list(): Promise<Scenario[]>
  /** Removes every scenario; resolves with how many there were. */
  clear(): Promise<number>
}

/** The mock refused a scenario operation: `param` names the field at fault. */
export class ScenarioError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly param?: string,
  ) {
    super(message)
    this.name = 'ScenarioError'
  }
}

/**
 * The in-process scenario API over a platform's `handle`: each call is a control-plane request, so the engine
 * (its store, its state) stays the one truth whatever adapter added a scenario.
 */
export function createScenarioApi(
  handle: (request: EngineRequest) => Promise<EngineResponse>,
  adminToken?: string,
): ScenarioApi {
  async function call(method: string, path: string, body?: unknown): Promise<EngineResponse> {
    const headers: Record<string, string> = {}
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (adminToken !== undefined) headers.authorization = `Bearer ${adminToken}`
    return handle({
      method,
      url: `/_mock${path}`,
      headers,
      body: body === undefined ? null : JSON.stringify(body),
    })
  }

  function refused(response: EngineResponse): ScenarioError {
    const error = (response.body as { error?: { message?: string; param?: string } } | undefined)?.error
    return new ScenarioError(
      `The mock refused the scenario (${response.status}): ${error?.message ?? 'no reason given'}`,
      response.status,
      error?.param,
    )
  }

  async function remove(id: string): Promise<boolean> {
    const response = await call('DELETE', `/scenarios/${encodeURIComponent(id)}`)
    if (response.status === 404) return false
    if (response.status !== 200) throw refused(response)
    return true
  }

  return {
    async add(input) {
      const response = await call('POST', '/scenarios', input)
      if (response.status !== 201) throw refused(response)
      const scenario = response.body as Scenario
      return { ...scenario, remove: () => remove(scenario.id) }
    },
    async list() {
      const all: Scenario[] = []
      let after = ''
      for (;;) {
        const query = `?limit=100${after ? `&starting_after=${encodeURIComponent(after)}` : ''}`
        const response = await call('GET', `/scenarios${query}`)
        if (response.status !== 200) throw refused(response)
        const page = response.body as { data: Scenario[]; has_more: boolean }
        all.push(...page.data)
        const last = page.data.at(-1)
        if (!page.has_more || !last) return all
        after = last.id
      }
    },
    async clear() {
      const response = await call('DELETE', '/scenarios')
      if (response.status !== 200) throw refused(response)
      return (response.body as { deleted: number }).deleted
    },
  }
}

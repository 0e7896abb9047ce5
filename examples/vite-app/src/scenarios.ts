/** A scenario that can be taken back (the mock's `api.scenarios.add` answer, or one added over HTTP). */
export interface ActiveScenario {
  remove(): Promise<unknown>
}

/** Adds scenarios to the mock the app talks to: `{ operation: 'listAgents', status: 500 }`, ... */
export interface Scenarios {
  add(input: Record<string, unknown>): Promise<ActiveScenario>
}

/**
 * Scenarios through the mock's control plane at `root` (`/_mock` behind the dev server's proxy): the
 * browser calls it same-origin, which the control plane accepts; a page of another origin it refuses.
 */
export function controlPlaneScenarios(root: string): Scenarios {
  return {
    async add(input) {
      const response = await fetch(`${root}/scenarios`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(input),
      })
      const body = (await response.json()) as { id?: string; error?: { message: string } }
      if (!response.ok || !body.id)
        throw new Error(body.error?.message ?? `The mock answered ${response.status}`)
      const id = body.id
      return { remove: () => fetch(`${root}/scenarios/${id}`, { method: 'DELETE' }) }
    },
  }
}

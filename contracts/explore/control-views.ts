import type { Difference } from './compare-answers.ts'
import type { IdMap } from './id-map.ts'

/**
 * The dashboard's views of an account on the control plane (`openapi/mock-control.yaml`): its keys, and the
 * account itself (plan, quotas). Exploration reads them on both sides and compares them: what the target's
 * dashboard shows after a sequence (a key's last use, its revocation, its rotation date; the plan a change left)
 * must be what the model's shows.
 */
export const CONTROL_VIEWS = ['keys', 'account'] as const
export type ControlView = (typeof CONTROL_VIEWS)[number]

/** Where mock-control.yaml describes each view's answer. */
export const VIEW_PLACES: Record<ControlView, string> = {
  keys: 'mock-control.yaml listKeys 200: #/components/schemas/ApiKey',
  account: 'mock-control.yaml getAccount 200: #/components/schemas/Account',
}

/** Fields that show part of a key's value: each side made its own keys, so they differ by design. */
const VALUE_FIELDS: ReadonlySet<string> = new Set(['value', 'redacted_value'])
const INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
const shown = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v))

/**
 * Where the target's view differs from the model's: the target's IDs read as the model's, lists paired by ID
 * (objects made in one second are ordered by IDs, which each side draws for itself), instants equal within a
 * second (the model runs a request in the second the target's answer told, which is rounded up), the fields that
 * show a key's value left out, and a field the model does not show (the contract's are all it shows) not compared.
 */
export function viewDifferences(
  target: unknown,
  model: unknown,
  ids: IdMap,
  decidedBy: string,
): Difference[] {
  const out: Difference[] = []
  const differ = (at: string, t: unknown, m: unknown) =>
    out.push({ at, target: shown(t).slice(0, 200), model: shown(m).slice(0, 200), decidedBy })

  const walk = (t: unknown, m: unknown, at: string): void => {
    if (
      Array.isArray(t) &&
      Array.isArray(m) &&
      [...t, ...m].every((v) => isObject(v) && typeof v.id === 'string')
    ) {
      const byModelId = new Map(t.map((item) => [ids.toModel(String(item.id)) ?? String(item.id), item]))
      for (const item of m as Record<string, unknown>[]) {
        const twin = byModelId.get(String(item.id))
        if (twin === undefined) differ(`${at}[id=${String(item.id)}]`, undefined, item)
        else walk(twin, item, `${at}[id=${String(item.id)}]`)
        byModelId.delete(String(item.id))
      }
      for (const [id, item] of byModelId) differ(`${at}[id=${id}]`, item, undefined)
      return
    }
    if (Array.isArray(t) && Array.isArray(m)) {
      if (t.length !== m.length) differ(`${at}.length`, t.length, m.length)
      else for (const [i, item] of t.entries()) walk(item, m[i], `${at}[${i}]`)
      return
    }
    if (isObject(t) && isObject(m)) {
      // The fields the model shows, which are mock-control.yaml's: a field the target adds is its own.
      for (const name of Object.keys(m)) if (!VALUE_FIELDS.has(name)) walk(t[name], m[name], `${at}.${name}`)
      return
    }
    if (typeof t === 'string' && typeof m === 'string') {
      const mapped = ids.toModel(t) ?? t
      if (mapped === m) return
      if (INSTANT.test(t) && INSTANT.test(m) && Math.abs(Date.parse(t) - Date.parse(m)) <= 1000) return
      differ(at, t, m)
      return
    }
    if (JSON.stringify(t) !== JSON.stringify(m)) differ(at, t, m)
  }
  walk(target, model, 'body')
  return out
}

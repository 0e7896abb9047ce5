import { type MockControl, MockControlError } from '../provision/mock-control.ts'
import type { Difference } from './compare-answers.ts'
import type { IdMap } from './id-map.ts'
import { isObject } from './is-object.ts'

/**
 * The dashboard's views of an account on the control plane (`openapi/mock-control.yaml`): its keys, the account
 * itself (plan, quotas), its rate-limit windows, and the request journal. Exploration reads them on both sides and
 * compares them: what the target's dashboard shows after a sequence (a key's last use, its revocation, its rotation
 * date; the plan a change left; what each window counted) must be what the model's shows. The journal is held to
 * what mock-control.yaml says of any journal (newest first, within its limit, the account's requests only) rather
 * than to the model's: its entries name the requests as the target received them.
 */
export const CONTROL_VIEWS = [
  'keys',
  'account',
  'rate-limit',
  'journal',
  'accounts',
  'agents',
  'calls',
] as const
export type ControlView = (typeof CONTROL_VIEWS)[number]

/** Where mock-control.yaml describes each view's answer. */
export const VIEW_PLACES: Record<ControlView, string> = {
  keys: 'mock-control.yaml listKeys 200: #/components/schemas/ApiKey',
  account: 'mock-control.yaml getAccount 200: #/components/schemas/Account',
  'rate-limit':
    'mock-control.yaml getRateLimitUsage: reset_seconds is the t of the v1 RateLimit header (0 when the window is empty): #/components/schemas/RateLimitWindow',
  journal:
    'mock-control.yaml listJournal: "the most recent 1000 requests to /v1 ..., newest first. Filters combine with AND"; status: "Only responses with this status (401) or status class (4xx)"',
  accounts:
    'mock-control.yaml listAccounts: "Lists every account of the mock in creation order (... oldest first)"',
  agents:
    'mock-control.yaml listAccountAgents: "The account\'s agents, newest first, with what a call needs to know of them"',
  calls:
    'mock-control.yaml listCalls: "The account\'s most recent call logs, newest first" (`limit` default 10); what a simulated call said and cost is the target\'s own',
}

/** How each view is read on a control plane, and what the dashboard calls it. */
export const VIEW_READS: Record<ControlView, { path: string; what: string }> = {
  keys: { path: '/accounts/{account_id}/keys', what: 'keys' },
  account: { path: '/accounts/{account_id}', what: 'plan and quotas' },
  'rate-limit': { path: '/accounts/{account_id}/rate-limit', what: 'rate-limit windows' },
  journal: {
    path: '/journal?account_id={account_id}',
    what: 'latest requests (the journal, 100 by default)',
  },
  accounts: { path: '/accounts', what: 'place in the list of accounts' },
  agents: { path: '/accounts/{account_id}/agents', what: 'agents (to start calls from)' },
  calls: { path: '/accounts/{account_id}/calls', what: 'latest calls' },
}

/** What the calls view is compared on: what the control plane fixed of each call, not what the simulation made. */
const CALL_FIELDS = [
  'id',
  'agent_id',
  'status',
  'channel',
  'direction',
  'started_at',
  'ended_at',
  'duration_seconds',
  'created_at',
] as const

/** The journal's default length (mock-control.yaml listJournal `limit`). */
export const JOURNAL_DEFAULT_LIMIT = 100

/** Reads `view` of account `id` on a control plane. */
export async function readView(control: MockControl, view: ControlView, id: string): Promise<unknown> {
  switch (view) {
    case 'keys':
      return { data: await control.listKeys(id) }
    case 'account':
      return control.getAccount(id)
    case 'rate-limit':
      return control.rateLimit(id)
    case 'journal':
      return control.journal({ account_id: id })
    case 'accounts':
      return { data: await control.listAccounts() }
    case 'agents':
      return controlRead(control, `/accounts/${id}/agents`)
    case 'calls': {
      const body = await controlRead(control, `/accounts/${id}/calls`)
      const data = isObject(body) && Array.isArray(body.data) ? body.data.filter(isObject) : []
      return {
        data: data.map((call) => Object.fromEntries(CALL_FIELDS.map((field) => [field, call[field]]))),
      }
    }
  }
}

/** The JSON body of a control-plane read; a refusal is a `MockControlError`. */
async function controlRead(control: MockControl, path: string): Promise<unknown> {
  const { status, body } = await control.answer('GET', path)
  if (status !== 200) throw new MockControlError(`control plane GET /_mock${path} answered ${status}`)
  return body
}

/**
 * Counts of whole seconds that depend on where in its second the target read its clock, which the model knows
 * to the second only: equal within one second, and zero on both or on neither.
 */
const SECONDS_FIELDS: ReadonlySet<string> = new Set(['reset_seconds'])

/** Fields that show part of a key's value: each side made its own keys, so they differ by design. */
const VALUE_FIELDS: ReadonlySet<string> = new Set(['value', 'redacted_value'])
const INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i

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
      for (const name of Object.keys(m)) {
        if (VALUE_FIELDS.has(name)) continue
        const [tv, mv] = [t[name], m[name]]
        if (SECONDS_FIELDS.has(name) && typeof tv === 'number' && typeof mv === 'number')
          if (Math.abs(tv - mv) <= 1 && (tv === 0) === (mv === 0)) continue
        walk(tv, mv, `${at}.${name}`)
      }
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

/**
 * What any journal must show (mock-control.yaml listJournal), read with `limit` and the account's ID: at most
 * `limit` entries, newest first (an entry is never more than a second newer than the one listed before it: a
 * request is journaled once answered, and requests in flight together finish in any order), every one the
 * account's.
 */
export function journalDifferences(
  list: { data?: unknown; has_more?: unknown },
  limit: number,
  accountId: string,
): Difference[] {
  const decidedBy = VIEW_PLACES.journal
  const out: Difference[] = []
  const entries = Array.isArray(list.data) ? list.data.filter(isObject) : []
  if (entries.length > limit)
    out.push({ at: 'body.data.length', target: String(entries.length), model: `at most ${limit}`, decidedBy })
  for (const [i, entry] of entries.entries()) {
    if (entry.account_id !== accountId)
      out.push({
        at: `body.data[${i}].account_id`,
        target: shown(entry.account_id),
        model: shown(accountId),
        decidedBy,
      })
  }
  return [...out, ...orderDifferences(entries, 'at', 'newest first', 1000, decidedBy)]
}

/** A v1 request the sequence sent to the target with the account's secret key, as it was answered. */
export interface SentRequest {
  method: string
  /** As sent, relative to the base URL, query included. */
  path: string
  status: number
  /** The answer's `Request-Id`: the journal entry's `id`. */
  requestId: string
}

const JOURNAL_HOLDS =
  'mock-control.yaml listJournal: "the most recent 1000 requests to `/v1` (all of them, including 401s, 429s and unknown paths ...)"; JournalEntry: `id` "The request\'s `Request-Id`", `path` "The URL path as received, without query string", `method` "upper-cased"'

/**
 * Where the journal (newest first, read whole or to its default length) leaves out or misnames a request this
 * sequence sent with the account's secret key since the journal was last read: each is an entry of its own, its
 * `id` the answer's `Request-Id`, with the request's method, its path without the query string (the journal's
 * paths carry the base URL's), and the status it was answered with.
 */
export function journalHoldsDifferences(
  list: { data?: unknown },
  sent: readonly SentRequest[],
): Difference[] {
  const entries = new Map(
    (Array.isArray(list.data) ? list.data.filter(isObject) : []).map((entry) => [String(entry.id), entry]),
  )
  const out: Difference[] = []
  for (const request of sent) {
    const entry = entries.get(request.requestId)
    const named = `entry ${request.requestId} (${request.method} ${request.path}, answered ${request.status})`
    if (!entry) {
      out.push({ at: 'body.data', target: '(no such entry)', model: named, decidedBy: JOURNAL_HOLDS })
      continue
    }
    const path = request.path.split('?')[0] as string
    const expected = { method: request.method.toUpperCase(), status: request.status }
    for (const [field, value] of Object.entries(expected))
      if (entry[field] !== value)
        out.push({
          at: `body.data[id=${request.requestId}].${field}`,
          target: shown(entry[field]),
          model: shown(value),
          decidedBy: JOURNAL_HOLDS,
        })
    if (typeof entry.path !== 'string' || !entry.path.endsWith(path) || entry.path.includes('?'))
      out.push({
        at: `body.data[id=${request.requestId}].path`,
        target: shown(entry.path),
        model: `…${path}`,
        decidedBy: JOURNAL_HOLDS,
      })
  }
  return out.slice(0, 5)
}

/**
 * Where a list's instants (`field`) break its order: each entry no more than `slackMs` newer than the one listed
 * before it (newest first), or no older (oldest first).
 */
function orderDifferences(
  entries: Record<string, unknown>[],
  field: string,
  order: 'newest first' | 'oldest first',
  slackMs: number,
  decidedBy: string,
): Difference[] {
  const out: Difference[] = []
  for (const [i, entry] of entries.entries()) {
    const before = entries[i - 1]
    if (before === undefined) continue
    const step = Date.parse(String(entry[field])) - Date.parse(String(before[field]))
    if (order === 'newest first' ? step > slackMs : step < -slackMs)
      out.push({
        at: `body.data[${i}].${field}`,
        target: `${shown(entry[field])} listed after ${shown(before[field])}`,
        model: order,
        decidedBy,
      })
  }
  return out
}

/**
 * What the journal filtered by a status class (`4xx`) must be: the account's journal with the entries of other
 * statuses left out (filters combine with AND), when the unfiltered one is whole (no `has_more`).
 */
export function filteredJournalDifferences(
  whole: { data?: unknown; has_more?: unknown },
  filtered: { data?: unknown },
  statusClass: string,
): Difference[] {
  if (whole.has_more !== false || !Array.isArray(whole.data) || !Array.isArray(filtered.data)) return []
  const matches = (entry: unknown) => isObject(entry) && String(entry.status)[0] === statusClass[0]
  const ids = (entries: unknown[]) => entries.map((e) => (isObject(e) ? String(e.id) : '?'))
  const expected = ids(whole.data.filter(matches))
  const got = ids(filtered.data)
  if (JSON.stringify(expected) === JSON.stringify(got)) return []
  return [
    {
      at: `body.data (status=${statusClass})`,
      target: `${got.length} entries: ${got.slice(0, 5).join(', ')}`,
      model: `the ${expected.length} ${statusClass} entries of the unfiltered journal: ${expected.slice(0, 5).join(', ')}`,
      decidedBy: VIEW_PLACES.journal,
    },
  ]
}

/**
 * What the list of accounts must show of the sequence's accounts (`made`, in the order they were made): each
 * listed, in that order, and every account listed no earlier than the one before it (creation order).
 */
export function accountsDifferences(list: { data?: unknown }, made: string[]): Difference[] {
  const decidedBy = VIEW_PLACES.accounts
  const entries = Array.isArray(list.data) ? list.data.filter(isObject) : []
  const out: Difference[] = []
  const at = made.map((id) => entries.findIndex((a) => a.id === id))
  for (const [i, id] of made.entries())
    if ((at[i] ?? -1) < 0)
      out.push({ at: `body.data[id=${id}]`, target: '(absent)', model: 'listed', decidedBy })
  const places = at.filter((p) => p >= 0)
  if (places.some((p, i) => i > 0 && p < (places[i - 1] as number)))
    out.push({
      at: 'body.data (order)',
      target: `${made.join(', ')} at places ${at.join(', ')}`,
      model: 'in the order they were made',
      decidedBy,
    })
  return [...out, ...orderDifferences(entries, 'created_at', 'oldest first', 0, decidedBy)]
}

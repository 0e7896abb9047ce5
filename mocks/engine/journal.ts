import type { components } from '../../openapi/generated/mock-control.types.ts'
import type { Clock } from './clock.ts'
import { JournalEntries } from './journal-entries.ts'
import type { RequestContext } from './pipeline/request-context.ts'
import { redactSecrets } from './secrets.ts'
import type { EngineState } from './state/state.ts'
import type { EngineResponse } from './types.ts'
import { upperCaseMethod } from './upper-case-method.ts'

/** How the journal marks a request a scenario (or a `Prefer` header) answered or delayed. */
export type JournalScenario = components['schemas']['JournalScenario']

/** One request as the control plane's journal shows it: never a key value, never a query string. */
export interface JournalEntry {
  id: string
  object: 'journal_entry'
  at: string
  method: string
  path: string
  operation_id: string | null
  status: number
  account_id: string | null
  key_id: string | null
  duration_ms: number
  /** The scenario (or `Prefer` header) that answered or delayed the request. */
  scenario: JournalScenario | null
}

export interface JournalQuery {
  account_id?: string
  key_id?: string
  status?: string
  limit?: number
}

/**
 * The state table of the journal: entries keyed by their request's id (soft changes), so that the journals of
 * several processes on one store merge.
 */
export const JOURNAL_TABLE = 'journal'

/**
 * A bounded log of recent requests (the newest `capacity`), newest first when listed; a table of the engine's
 * state whose changes are soft (saved a moment late).
 */
export function createJournal(state: EngineState, capacity = 1000) {
  /** Entries by request id, oldest first (the order they were recorded or learnt of). */
  const entries = new JournalEntries<JournalEntry>()
  /** The ids of the last `capacity` entries in a ring: the one a new entry replaces is the oldest. */
  const ring: (string | undefined)[] = new Array(capacity)
  let next = 0

  /** Notes a new entry; the entry it pushes out of the last `capacity` is dropped. */
  function remember(id: string): void {
    const slot = next++ % capacity
    const oldest = ring[slot]
    ring[slot] = id
    if (oldest !== undefined && oldest !== id) drop(oldest)
  }

  state.register(JOURNAL_TABLE, {
    apply(key, value) {
      entries.remove(key)
      if (value === null) return
      entries.appendNew(key, value as JournalEntry)
      remember(key)
    },
    entries: () => entries.entries(),
    clear() {
      entries.clear()
      ring.fill(undefined)
      next = 0
    },
  })

  function drop(id: string): void {
    const entry = entries.remove(id)
    if (!entry) return
    state.record(JOURNAL_TABLE, id, null, entry, true)
  }

  return {
    /** Records the entry of a request (`entry.id` is its request id, new to the journal). */
    record(entry: JournalEntry): void {
      entries.appendNew(entry.id, entry)
      state.record(JOURNAL_TABLE, entry.id, entry, null, true)
      remember(entry.id)
    },
    list({ account_id, key_id, status, limit = 100 }: JournalQuery = {}): {
      data: JournalEntry[]
      has_more: boolean
    } {
      const statusMatches = (code: number) => {
        if (!status) return true
        if (/^[1-5]xx$/i.test(status)) return String(code)[0] === status[0]
        return String(code) === status
      }
      const matching = entries
        .valuesInOrder()
        .reverse()
        .filter(
          (e) =>
            (!account_id || e.account_id === account_id) &&
            (!key_id || e.key_id === key_id) &&
            statusMatches(e.status),
        )
      // Entries saved by an earlier version have no `scenario`: none applied to them.
      const data = matching
        .slice(0, limit)
        .map((e) => (e.scenario === undefined ? { ...e, scenario: null } : e))
      return { data, has_more: matching.length > limit }
    },
    /** Empties the journal, recorded as changes. */
    clear(): void {
      for (const id of entries.keys()) drop(id)
    },
  }
}

export type Journal = ReturnType<typeof createJournal>

/** What the journal knows of a request besides its answer. */
export interface JournaledRequest extends RequestContext {
  key?: { record: { id: string; account_id: string } }
  scenario?: JournalScenario
}

/**
 * The journal's entry for an answered request: never a key value (a key pasted into the path is redacted),
 * never a query string.
 */
export function journalEntry(
  ctx: JournaledRequest,
  response: EngineResponse,
  startedAt: number,
  clock: Clock,
): JournalEntry {
  return {
    id: ctx.requestId,
    object: 'journal_entry',
    at: clock.iso(),
    method: upperCaseMethod(ctx.request.method),
    path: redactSecrets(ctx.url.pathname),
    operation_id: ctx.operation?.operationId ?? null,
    status: response.status,
    account_id: ctx.key?.record.account_id ?? null,
    key_id: ctx.key?.record.id ?? null,
    duration_ms: Math.round((performance.now() - startedAt) * 1000) / 1000,
    scenario: ctx.scenario ?? null,
  }
}

/** What the request pipeline calls with every answered request: its entry in the journal, stamped by the clock. */
export function journalRequests(journal: Journal, clock: Clock) {
  return (ctx: JournaledRequest, response: EngineResponse, startedAt: number): void =>
    journal.record(journalEntry(ctx, response, startedAt, clock))
}

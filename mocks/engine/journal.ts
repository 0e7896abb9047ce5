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
}

export interface JournalQuery {
  account_id?: string
  key_id?: string
  status?: string
  limit?: number
}

/** A bounded ring of recent requests, newest first when listed. */
export function createJournal(capacity = 1000) {
  let entries: JournalEntry[] = []
  let next = 0
  return {
    record(entry: JournalEntry): void {
      if (entries.length < capacity) entries.push(entry)
      else entries[next] = entry
      next = (next + 1) % capacity
    },
    list({ account_id, key_id, status, limit = 100 }: JournalQuery = {}): {
      data: JournalEntry[]
      has_more: boolean
    } {
      const ordered = [...entries.slice(next), ...entries.slice(0, next)].reverse()
      const statusMatches = (code: number) => {
        if (!status) return true
        if (/^[1-5]xx$/i.test(status)) return String(code)[0] === status[0]
        return String(code) === status
      }
      const matching = ordered.filter(
        (e) =>
          (!account_id || e.account_id === account_id) &&
          (!key_id || e.key_id === key_id) &&
          statusMatches(e.status),
      )
      return { data: matching.slice(0, limit), has_more: matching.length > limit }
    },
    clear(): void {
      entries = []
      next = 0
    },
  }
}

export type Journal = ReturnType<typeof createJournal>

import type { Cidr } from '../cidr.ts'
import type { EngineState } from '../state/state.ts'
import type { StoredKey } from './key-types.ts'

/** The state table of the keys (records with their hashes), by key id. */
export const KEYS_TABLE = 'keys'

/**
 * The keys as stored: by id, by the digest of their value (the lookup of every request), and each key's parsed
 * `allowed_ips` ranges; a table of the engine's state. A stored key is replaced, never changed in place.
 */
export class KeyTable {
  private readonly byId = new Map<string, StoredKey>()
  private readonly byHash = new Map<string, StoredKey>()
  /** Parsed `allowed_ips` of a key: restrictions are set at creation and never change. */
  readonly ranges = new Map<string, Cidr[]>()

  constructor(private readonly state: EngineState) {
    state.register(KEYS_TABLE, {
      apply: (id, value) => (value === null ? this.unset(id) : this.set(value as StoredKey)),
      entries: () => this.byId.entries(),
      clear: () => {
        this.byId.clear()
        this.byHash.clear()
        this.ranges.clear()
      },
      account: (_id, stored) => (stored as StoredKey | null)?.record.account_id,
    })
  }

  byDigest = (hash: string) => this.byHash.get(hash)
  get = (id: string) => this.byId.get(id)
  values = () => this.byId.values()

  /** Replaces a stored key and records the change (`soft`: bookkeeping such as the last-used time). */
  put(stored: StoredKey, soft = false): StoredKey {
    const before = this.byId.get(stored.record.id) ?? null
    this.set(stored)
    this.state.record(KEYS_TABLE, stored.record.id, stored, before, soft)
    return stored
  }

  /** Removes a key, recorded as a change. */
  remove(id: string): void {
    const stored = this.byId.get(id)
    if (!stored) return
    this.unset(id)
    this.state.record(KEYS_TABLE, id, null, stored)
  }

  private set(stored: StoredKey): void {
    this.byId.set(stored.record.id, stored)
    this.byHash.set(stored.hash, stored)
  }

  private unset(id: string): void {
    const stored = this.byId.get(id)
    if (!stored) return
    this.byId.delete(id)
    this.byHash.delete(stored.hash)
    this.ranges.delete(id)
  }
}

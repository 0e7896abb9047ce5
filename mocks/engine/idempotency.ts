import type { OperationResult } from './operation-result.ts'
import { type RecordChange, RecordMap } from './record-map.ts'
import { sha256Hex } from './secrets.ts'

/** Idempotency keys are kept 24 hours (docs/decisions/008-lists-and-idempotency.md). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255
/** Stored replays per account at most. */
export const MAX_IDEMPOTENCY_ENTRIES = 10_000
/** Bytes of stored responses per account at most (their JSON): memory stays bounded whatever the bodies. */
export const MAX_IDEMPOTENCY_BYTES = 16 * 1024 * 1024

/**
 * A stored response, under the SHA-256 of its `Idempotency-Key` (a client may paste anything there, a key
 * value included: it is never kept as sent) with the SHA-256 of what the request was (operation and body).
 */
export interface StoredReplay {
  fingerprint: string
  result: OperationResult
  expiresAt: number
  /** Size of `result` as JSON, counted against the byte bound. */
  bytes: number
}

export type IdempotencyLookup =
  | { kind: 'new' }
  | { kind: 'replay'; result: OperationResult }
  | { kind: 'conflict' }

/**
 * Stored responses of POSTs made with an `Idempotency-Key`, for one account; bounded by time (24 h), by
 * count and by bytes, the oldest dropped first. A record map of the engine's state.
 */
export class IdempotencyStore {
  private readonly entries: RecordMap<StoredReplay>
  private bytes = 0

  constructor(onChange?: RecordChange<StoredReplay>) {
    this.entries = new RecordMap<StoredReplay>(onChange)
  }

  lookup(key: string, fingerprint: string, nowMs: number): IdempotencyLookup {
    const digest = sha256Hex(key)
    const stored = this.entries.get(digest)
    if (!stored || stored.expiresAt <= nowMs) {
      if (stored) this.remove(digest)
      return { kind: 'new' }
    }
    return stored.fingerprint === sha256Hex(fingerprint)
      ? { kind: 'replay', result: stored.result }
      : { kind: 'conflict' }
  }

  save(key: string, fingerprint: string, result: OperationResult, nowMs: number): void {
    const digest = sha256Hex(key)
    const replay: StoredReplay = {
      fingerprint: sha256Hex(fingerprint),
      result,
      expiresAt: nowMs + IDEMPOTENCY_TTL_MS,
      bytes: JSON.stringify(result).length,
    }
    const previous = this.entries.get(digest)
    if (previous) this.remove(digest)
    this.makeRoom(replay.bytes, nowMs)
    this.bytes += replay.bytes
    this.entries.put(digest, replay)
  }

  /** Drops expired entries; then, while a bound would be passed, the oldest ones (insertion order). */
  private makeRoom(incoming: number, nowMs: number): void {
    const full = () =>
      this.entries.size >= MAX_IDEMPOTENCY_ENTRIES || this.bytes + incoming > MAX_IDEMPOTENCY_BYTES
    if (!full()) return
    for (const [digest, stored] of [...this.entries.entries()])
      if (stored.expiresAt <= nowMs) this.remove(digest)
    for (const digest of [...this.entries.keys()]) {
      if (!full()) break
      this.remove(digest)
    }
  }

  private remove(digest: string, soft = true): void {
    const stored = this.entries.get(digest)
    if (!stored) return
    this.bytes -= stored.bytes
    this.entries.delete(digest, soft)
  }

  /** Deletes every stored replay (the account is deleted). */
  removeAll(): void {
    for (const digest of [...this.entries.keys()]) this.remove(digest, false)
  }

  /** A change made elsewhere (a store's log, another process), applied here. */
  apply(digest: string, value: StoredReplay | null): void {
    this.bytes -= this.entries.get(digest)?.bytes ?? 0
    this.entries.apply(digest, value)
    this.bytes += value?.bytes ?? 0
  }

  records(): IterableIterator<[string, StoredReplay]> {
    return this.entries.entries()
  }

  get size(): number {
    return this.entries.size
  }
}

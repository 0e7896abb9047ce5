import type { OperationResult } from './types.ts'

/** Idempotency keys are kept 24 hours (decisions.md section 8). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255
/** Stored replays per account at most: memory stays bounded under any load. */
const MAX_ENTRIES = 10_000

export interface StoredReplay {
  fingerprint: string
  result: OperationResult
  expiresAt: number
}

export type IdempotencyLookup =
  | { kind: 'new' }
  | { kind: 'replay'; result: OperationResult }
  | { kind: 'conflict' }

/** Stored responses of POSTs made with an `Idempotency-Key`, per account. */
export class IdempotencyStore {
  private readonly entries = new Map<string, StoredReplay>()

  lookup(key: string, fingerprint: string, nowMs: number): IdempotencyLookup {
    const stored = this.entries.get(key)
    if (!stored || stored.expiresAt <= nowMs) {
      if (stored) this.entries.delete(key)
      return { kind: 'new' }
    }
    return stored.fingerprint === fingerprint
      ? { kind: 'replay', result: stored.result }
      : { kind: 'conflict' }
  }

  save(key: string, fingerprint: string, result: OperationResult, nowMs: number): void {
    if (this.entries.size >= MAX_ENTRIES) this.sweep(nowMs)
    this.entries.set(key, { fingerprint, result, expiresAt: nowMs + IDEMPOTENCY_TTL_MS })
  }

  /** Drops expired entries; if still full, the oldest ones (a Map iterates in insertion order). */
  private sweep(nowMs: number): void {
    for (const [key, stored] of this.entries) if (stored.expiresAt <= nowMs) this.entries.delete(key)
    for (const key of this.entries.keys()) {
      if (this.entries.size < MAX_ENTRIES * 0.9) break
      this.entries.delete(key)
    }
  }

  dump(): [string, StoredReplay][] {
    return [...this.entries]
  }

  restore(entries: [string, StoredReplay][]): void {
    this.entries.clear()
    for (const [key, stored] of entries) this.entries.set(key, stored)
  }
}

import { describe, expect, it } from 'vitest'
import {
  IDEMPOTENCY_TTL_MS,
  IdempotencyStore,
  MAX_IDEMPOTENCY_BYTES,
  MAX_IDEMPOTENCY_ENTRIES,
} from '../../mocks/engine/idempotency.ts'
import type { OperationResult } from '../../mocks/engine/operation-result.ts'

const NOW = Date.UTC(2026, 0, 1)
const result = (body: unknown): OperationResult => ({ status: 201, body })
/** A stored response whose JSON is about `bytes` long. */
const sized = (bytes: number) => result({ text: 'x'.repeat(bytes) })

describe('IdempotencyStore bounds', () => {
  it('drops the oldest replay when the count bound is reached, and keeps the newest', () => {
    const store = new IdempotencyStore()
    for (let i = 0; i <= MAX_IDEMPOTENCY_ENTRIES; i++) store.save(`key-${i}`, 'f', result(i), NOW)
    expect(store.size).toBe(MAX_IDEMPOTENCY_ENTRIES)
    expect(store.lookup('key-0', 'f', NOW)).toEqual({ kind: 'new' })
    expect(store.lookup('key-1', 'f', NOW)).toEqual({ kind: 'replay', result: result(1) })
    expect(store.lookup(`key-${MAX_IDEMPOTENCY_ENTRIES}`, 'f', NOW).kind).toBe('replay')
  })

  it('drops the oldest replays when their bytes would pass the bound', () => {
    const store = new IdempotencyStore()
    const quarter = Math.floor(MAX_IDEMPOTENCY_BYTES / 4)
    for (let i = 0; i < 4; i++) store.save(`key-${i}`, 'f', sized(quarter - 100), NOW)
    expect(store.size).toBe(4)
    store.save('key-4', 'f', sized(quarter - 100), NOW)
    expect(store.size).toBe(4)
    expect(store.lookup('key-0', 'f', NOW).kind).toBe('new')
    expect(store.lookup('key-1', 'f', NOW).kind).toBe('replay')
  })

  it('counts a replaced replay once: saving the same key again frees its old bytes', () => {
    const store = new IdempotencyStore()
    const half = Math.floor(MAX_IDEMPOTENCY_BYTES / 2)
    store.save('other', 'f', sized(100), NOW)
    for (let i = 0; i < 4; i++) store.save('same', 'f', sized(half - 1000), NOW)
    expect(store.lookup('other', 'f', NOW).kind).toBe('replay')
  })

  it('drops expired replays before live ones when full', () => {
    const store = new IdempotencyStore()
    const half = Math.floor(MAX_IDEMPOTENCY_BYTES / 2)
    store.save('old', 'f', sized(half - 1000), NOW)
    store.save('live', 'f', sized(100), NOW + IDEMPOTENCY_TTL_MS)
    store.save('new', 'f', sized(half), NOW + IDEMPOTENCY_TTL_MS)
    expect(store.lookup('live', 'f', NOW + IDEMPOTENCY_TTL_MS).kind).toBe('replay')
    expect(store.lookup('new', 'f', NOW + IDEMPOTENCY_TTL_MS).kind).toBe('replay')
  })

  it('counts the bytes of changes applied from a store', () => {
    const store = new IdempotencyStore()
    const half = Math.floor(MAX_IDEMPOTENCY_BYTES / 2)
    const big = {
      fingerprint: 'x',
      result: sized(half),
      expiresAt: NOW + IDEMPOTENCY_TTL_MS,
      bytes: half + 20,
    }
    store.apply('applied', big)
    store.save('mine', 'f', sized(half), NOW)
    expect(store.size).toBe(1)
    store.apply('applied', null)
    store.save('more', 'f', sized(half - 1000), NOW)
    expect(store.size).toBe(2)
  })

  it('forgets everything on removeAll', () => {
    const store = new IdempotencyStore()
    store.save('a', 'f', result(1), NOW)
    store.save('b', 'f', result(2), NOW)
    store.removeAll()
    expect(store.size).toBe(0)
    expect(store.lookup('a', 'f', NOW).kind).toBe('new')
  })
})

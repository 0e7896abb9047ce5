import type { StateSnapshot } from '../engine/state/change-set.ts'

/**
 * What the browser keeps between reloads of one tab: the engine state (key hashes only, never a key value
 * created in the dashboard; the request journal with it), and the values of the two seeded demo keys, so that
 * an app that reads `mock.publishableKey` keeps working after a reload.
 */
export interface SavedState {
  version: 2
  snapshot: StateSnapshot
  demoKeys: { secretKey?: string; publishableKey?: string }
}

/** Where the saved state lives; `save` answers false when it could not be written (quota, private mode). */
export interface SessionStore {
  load(): SavedState | undefined
  save(state: SavedState): boolean
  clear(): void
}

/** The `sessionStorage` item the browser mock uses unless told otherwise. */
export const DEFAULT_STORAGE_KEY = 'voice-api-kit:mock-state'

type StorageLike = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>

function isSavedState(value: unknown): value is SavedState {
  if (typeof value !== 'object' || value === null) return false
  const state = value as Partial<SavedState>
  return (
    state.version === 2 &&
    typeof state.snapshot === 'object' &&
    state.snapshot?.version === 2 &&
    typeof state.demoKeys === 'object'
  )
}

/**
 * A state store over a Web Storage area (`sessionStorage` by default: one tab, gone when it closes).
 * Without storage (a worker, a server render, storage disabled) it stores nothing.
 */
export function createSessionStore(
  storage: StorageLike | undefined = globalThis.sessionStorage,
  key: string = DEFAULT_STORAGE_KEY,
): SessionStore {
  let warned = false
  return {
    load() {
      try {
        const text = storage?.getItem(key)
        if (!text) return undefined
        const parsed: unknown = JSON.parse(text)
        return isSavedState(parsed) ? parsed : undefined
      } catch {
        return undefined
      }
    },
    save(state) {
      if (!storage) return false
      try {
        storage.setItem(key, JSON.stringify(state))
        return true
      } catch (error) {
        if (!warned) {
          warned = true
          console.warn(
            `[voice-api-kit] Could not save the mock's state (${String(error)}); a reload will reseed.`,
          )
        }
        return false
      }
    },
    clear() {
      try {
        storage?.removeItem(key)
      } catch {
        // Storage is unavailable: nothing was saved.
      }
    },
  }
}

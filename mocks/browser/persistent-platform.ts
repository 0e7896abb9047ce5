import { createMemoryStore } from '../engine/state/store.ts'
import type { EngineRequest, EngineResponse } from '../engine/types.ts'
import { createMockPlatform, type MockPlatform, type MockPlatformOptions } from '../platform.ts'
import type { SavedState, SessionStore } from './session-store.ts'

export interface PersistentPlatformOptions extends Omit<MockPlatformOptions, 'store' | 'clock'> {
  /** Where the state is kept between reloads. A `capsule` given is opened in place of what it saved. */
  store: SessionStore
  /** Quiet time before saving changes that do not alter data (last-used times, the journal). Default 200 ms. */
  saveDelayMs?: number
}

/** A mock platform that is restored from a store on creation and saved back after every request. */
export interface PersistentPlatform {
  /** The platform currently answering. */
  readonly platform: MockPlatform
  /** The demo account's secret key value, also after a reload. */
  readonly secretKey: string
  /** The demo account's publishable key value, also after a reload. */
  readonly publishableKey: string
  /** Whether the current platform was restored from the store rather than freshly seeded. */
  readonly restored: boolean
  /** Answers a request and saves the state: at once when data changed, otherwise after a short delay. */
  handle(request: EngineRequest): Promise<EngineResponse>
  /** Runs what fell due on the mock clock (calls moving) and saves what changed. */
  tick(): Promise<void>
  /** Writes any pending state now (call it on `pagehide`). */
  flush(): void
  /** Writes the state now (after a change made outside `handle`, such as `calls.start`). */
  save(): void
  /** Back to the seeded state, as `POST /_mock/reset` does: the demo keys stay valid. */
  reset(): Promise<void>
  /** Replaces the state by a capsule's (`platform.openCapsule`), and saves it. */
  openCapsule(capsule: unknown): ReturnType<MockPlatform['openCapsule']>
}

function knownValue(platform: MockPlatform, value: string | undefined, keyId: string) {
  if (!value) return undefined
  return platform.keys.find(value)?.record.id === keyId ? value : undefined
}

/** Restores the platform from `store` (or seeds it when there is nothing usable) and keeps it saved. */
export async function createPersistentPlatform(
  options: PersistentPlatformOptions,
): Promise<PersistentPlatform> {
  const { store, saveDelayMs = 200, ...platformOptions } = options
  let platform: MockPlatform
  let demoKeys: SavedState['demoKeys'] = {}
  let restored = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let dirty = false

  async function seed() {
    platform = await createMockPlatform(platformOptions)
    demoKeys = { secretKey: platform.demo.secretKey, publishableKey: platform.demo.publishableKey }
    restored = false
  }

  async function restore(saved: SavedState) {
    platform = await createMockPlatform({ ...platformOptions, store: createMemoryStore(saved.snapshot) })
    demoKeys = {
      secretKey: knownValue(platform, saved.demoKeys.secretKey, platform.demo.secretKeyId),
      publishableKey: knownValue(platform, saved.demoKeys.publishableKey, platform.demo.publishableKeyId),
    }
    restored = true
  }

  function save() {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    dirty = false
    demoKeys = {
      secretKey: current(demoKeys.secretKey, () => platform.demo.secretKeyId),
      publishableKey: current(demoKeys.publishableKey, () => platform.demo.publishableKeyId),
    }
    store.save({ version: 2, snapshot: platform.snapshot(), demoKeys })
  }

  function saveSoon() {
    dirty = true
    if (timer === undefined) timer = setTimeout(save, saveDelayMs)
  }

  /** A demo key's value while it still authenticates as the state's demo key (a capsule may replace them). */
  const current = (value: string | undefined, id: () => string) => knownValue(platform, value, id())

  const saved = platformOptions.capsule === undefined ? store.load() : undefined
  if (saved) {
    try {
      await restore(saved)
    } catch (error) {
      console.warn(
        `[voice-api-kit] The saved mock state could not be restored (${String(error)}); reseeding.`,
      )
      store.clear()
      await seed()
    }
  } else await seed()
  save()

  return {
    get platform() {
      return platform
    },
    get secretKey() {
      return current(demoKeys.secretKey, () => platform.demo.secretKeyId) ?? ''
    },
    get publishableKey() {
      return current(demoKeys.publishableKey, () => platform.demo.publishableKeyId) ?? ''
    },
    get restored() {
      return restored
    },
    async handle(request) {
      const changesBefore = platform.changes()
      const response = await platform.handle(request)
      if (platform.changes() !== changesBefore) save()
      else saveSoon()
      return response
    },
    async tick() {
      const changesBefore = platform.changes()
      await platform.tick()
      if (platform.changes() !== changesBefore) save()
    },
    flush() {
      if (dirty) save()
    },
    save,
    async reset() {
      await platform.reset()
      save()
    },
    async openCapsule(capsule) {
      const opened = await platform.openCapsule(capsule)
      save()
      return opened
    },
  }
}

import type { StateSnapshot } from '../state/change-set.ts'

/** The capsule format this engine writes and opens. */
export const CAPSULE_VERSION = 1

/**
 * A mock's whole state as one JSON document, to be opened by another mock (standalone, Node, browser): every
 * table of the engine's state (accounts, keys as SHA-256 digests only, resources, the clock's offset, scenarios,
 * the schedule, calls under way, webhook deliveries, the journal, the seed in `meta`), what the clock read, and
 * where it came from. Never a key value; the webhook signing secrets only when asked for (`webhook_secrets`).
 */
export interface Capsule {
  capsule: typeof CAPSULE_VERSION
  /** When the capsule was taken, in real time. */
  created_at: string
  /** The mock it was taken from: its version of voice-api-kit and its seed. */
  mock: { version: string; seed: number }
  /**
   * The mock clock when the capsule was taken (ISO 8601 with milliseconds), and its offset from real time then.
   * A mock that opens the capsule sets its clock back to `now`, wherever real time has gone since.
   */
  clock: { now: string; offset_seconds: number }
  /** Whether the state holds the accounts' webhook signing secrets (`webhook_secrets` table). */
  webhook_secrets: 'included' | 'omitted'
  /** Every table's records (`state.snapshot()`). */
  state: StateSnapshot
}

/** What opening a capsule did, as the control plane answers it. */
export interface OpenedCapsule {
  object: 'capsule_opened'
  created_at: string
  mock: Capsule['mock']
  /** The mock clock once the capsule was opened, and its new offset from real time. */
  clock: { now: string; offset_seconds: number }
  webhook_secrets: Capsule['webhook_secrets']
  /** Records per table, as opened. */
  records: Record<string, number>
}

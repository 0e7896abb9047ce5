import { ApiError, errors } from '../api-error.ts'
import { type Clock, toTimestamp } from '../clock.ts'
import type { OpenApiDocument } from '../contract/document.ts'
import type { ControlHandlers } from '../control/control-handler.ts'
import { json } from '../json-answer.ts'
import { MAX_CAPSULE_BYTES } from '../request-body.ts'
import type { StateSnapshot } from '../state/change-set.ts'
import { CLOCK_TABLE } from '../state/clock-table.ts'
import type { Meta } from '../state/meta.ts'
import type { EngineState } from '../state/state.ts'
import { MOCK_VERSION } from '../version.ts'
import { SIGNING_SECRETS_TABLE } from '../webhooks/signing-secrets.ts'
import { CAPSULE_VERSION, type Capsule, type OpenedCapsule } from './capsule.ts'
import { createCapsuleEncoder } from './capsule-encoder.ts'
import { CapsuleError, type CheckedCapsule, readCapsule } from './read-capsule.ts'

export interface CapsulesOptions {
  state: EngineState
  clock: Clock
  meta: Meta
  /** The v1 contract, against whose schemas a capsule's resources are checked. */
  document: OpenApiDocument
  /** The seed the mock was started with (a state always names its own in `meta`). */
  seed: number
}

/** What a capsule is taken with: the webhook signing secrets only when asked for (and only on loopback). */
export interface TakeOptions {
  webhookSecrets?: boolean
}

const MiB = 1024 * 1024

/**
 * State capsules: the whole state of the mock as one JSON document (`Capsule`), taken and opened as steps of
 * the engine, so that they go through whatever store keeps the state (a capsule opened on a file or Redis
 * store is saved or shared like any change). Opening checks the whole capsule first: one refused leaves the
 * state as it was. Brings the control plane's `GET` and `POST /_mock/capsule`.
 */
export function createCapsules(options: CapsulesOptions) {
  const { state, clock, meta } = options
  const encoder = createCapsuleEncoder()
  const realNow = () => clock.now() - clock.offsetSeconds() * 1000

  /** The capsule of this moment (call it inside a step, so that a shared store's latest state is in). */
  function take(asked: TakeOptions = {}): Capsule {
    const snapshot = state.snapshot()
    const tables = { ...snapshot.tables }
    if (!asked.webhookSecrets) delete tables[SIGNING_SECRETS_TABLE]
    return {
      capsule: CAPSULE_VERSION,
      created_at: toTimestamp(realNow()),
      mock: { version: MOCK_VERSION, seed: meta.demo()?.seed ?? options.seed },
      clock: { now: new Date(clock.now()).toISOString(), offset_seconds: clock.offsetSeconds() },
      webhook_secrets: asked.webhookSecrets ? 'included' : 'omitted',
      state: { version: snapshot.version, tables },
    }
  }

  /** The capsule of this moment as JSON (UTF-8 bytes); 409 `limit_reached` when over the bound a capsule may hold. */
  function bytes(asked: TakeOptions = {}): Uint8Array {
    const out = encoder.encode(take(asked))
    if (out.length > MAX_CAPSULE_BYTES)
      throw errors.conflict(
        'limit_reached',
        `The capsule would be over the ${MAX_CAPSULE_BYTES / MiB} MiB a capsule may hold (${(out.length / MiB).toFixed(1)} MiB): delete call logs or accounts, or POST /_mock/reset, before taking one.`,
      )
    return out
  }

  /**
   * Replaces the whole state by a checked capsule's, as one recorded change (call it inside a step), the clock
   * set back to where the capsule's stood.
   */
  function open({ capsule }: CheckedCapsule): OpenedCapsule {
    const offset = (Date.parse(capsule.clock.now) - realNow()) / 1000
    const tables = { ...capsule.state.tables, [CLOCK_TABLE]: [['offset', offset]] as [string, unknown][] }
    const opened: StateSnapshot = { version: capsule.state.version, tables }
    state.resetTo(opened)
    return {
      object: 'capsule_opened',
      created_at: capsule.created_at,
      mock: capsule.mock,
      clock: { now: toTimestamp(clock.now()), offset_seconds: clock.offsetSeconds() },
      webhook_secrets: capsule.webhook_secrets,
      records: Object.fromEntries(Object.entries(tables).map(([name, records]) => [name, records.length])),
    }
  }

  const check = (input: unknown) => readCapsule(input, options.document)

  const handlers: ControlHandlers = {
    getCapsule({ query, loopback }) {
      const webhookSecrets = query.webhook_secrets === 'include'
      if (webhookSecrets && !loopback)
        throw new ApiError(
          403,
          'permission_error',
          'loopback_only',
          'The webhook signing secrets leave the mock only on a loopback request: take the capsule from the machine the mock runs on, or without them.',
        )
      return json(200, bytes({ webhookSecrets }))
    },
    openCapsule({ body }) {
      let checked: CheckedCapsule
      try {
        checked = check(body)
      } catch (error) {
        if (!(error instanceof CapsuleError)) throw error
        throw new ApiError(
          422,
          'validation_error',
          'validation_failed',
          `${error.message} Nothing was changed.`,
          {
            param: error.param,
            errors: [{ param: error.param, code: 'invalid', message: error.message }],
          },
        )
      }
      return json(200, open(checked))
    },
  }

  return { take, bytes, check, open, handlers }
}

export type Capsules = ReturnType<typeof createCapsules>

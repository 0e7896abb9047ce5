import type { OpenApiDocument } from '../contract/document.ts'
import { MAX_CAPSULE_BYTES } from '../request-body.ts'
import { checkSavedState, SavedStateError } from '../saved-state.ts'
import type { StateSnapshot } from '../state/change-set.ts'
import type { DemoIds } from '../state/meta.ts'
import { CAPSULE_VERSION, type Capsule } from './capsule.ts'

/** A capsule this mock cannot open: one line naming the problem; `param` is the field at fault. */
export class CapsuleError extends Error {
  constructor(
    message: string,
    readonly param = '',
  ) {
    super(message)
    this.name = 'CapsuleError'
  }
}

/** A capsule checked whole, with the demo account and keys its state names. */
export interface CheckedCapsule {
  capsule: Capsule
  demo: DemoIds
}

const MiB = 1024 * 1024
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const encoder = new TextEncoder()

/** The text of a capsule as a value: refused over `MAX_CAPSULE_BYTES`, or when it is not JSON. */
function parse(text: string): unknown {
  const bytes = text.length * 3 <= MAX_CAPSULE_BYTES ? text.length : encoder.encode(text).length
  if (bytes > MAX_CAPSULE_BYTES)
    throw new CapsuleError(
      `The capsule is ${(bytes / MiB).toFixed(1)} MiB; a capsule holds at most ${MAX_CAPSULE_BYTES / MiB} MiB.`,
    )
  try {
    return JSON.parse(text)
  } catch (error) {
    // The parser's own message may quote the text (a signing secret, in a capsule that holds them): only where.
    const at = /position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1]
    throw new CapsuleError(
      `The capsule is not valid JSON (damaged or cut short${at === undefined ? '' : `, at character ${at}`}): take it again with GET /_mock/capsule.`,
    )
  }
}

/** The first of `checks` that fails, as the field it names and what is wrong. */
function firstProblem(value: Record<string, unknown>, checks: [string, (v: unknown) => boolean][]) {
  for (const [path, ok] of checks) {
    const field = path.split('.').reduce<unknown>((v, name) => (isObject(v) ? v[name] : undefined), value)
    if (!ok(field)) return { path, missing: field === undefined }
  }
  return undefined
}

const FIELDS: [string, (v: unknown) => boolean][] = [
  ['created_at', (v) => typeof v === 'string' && !Number.isNaN(Date.parse(v))],
  ['mock', isObject],
  ['mock.version', (v) => typeof v === 'string'],
  ['mock.seed', (v) => Number.isSafeInteger(v) && (v as number) >= 0],
  ['clock', isObject],
  ['clock.now', (v) => typeof v === 'string' && Number.isFinite(Date.parse(v))],
  ['clock.offset_seconds', (v) => typeof v === 'number' && Number.isFinite(v)],
  ['webhook_secrets', (v) => v === 'included' || v === 'omitted'],
  ['state', isObject],
]

/**
 * Checks a capsule whole before anything changes (its text, or the value parsed from it): its size, its JSON,
 * its version, its fields, then its state as a saved state is checked (every table known, every record well
 * formed, every reference resolved: `checkSavedState`). Throws `CapsuleError` naming the problem.
 */
export function readCapsule(input: unknown, document: OpenApiDocument): CheckedCapsule {
  const value = typeof input === 'string' ? parse(input) : input
  if (!isObject(value))
    throw new CapsuleError(
      'This is not a capsule: a capsule is a JSON object (take one with GET /_mock/capsule).',
    )
  if (value.capsule === undefined)
    throw new CapsuleError(
      "This is not a capsule: it has no 'capsule' version field (take one with GET /_mock/capsule).",
      'capsule',
    )
  if (value.capsule !== CAPSULE_VERSION) {
    const from =
      isObject(value.mock) && typeof value.mock.version === 'string' ? value.mock.version : 'unknown'
    throw new CapsuleError(
      `Capsule version ${JSON.stringify(value.capsule)} is not one this mock opens (it opens version ${CAPSULE_VERSION}): open it with the voice-api-kit that took it (${from}).`,
      'capsule',
    )
  }
  const problem = firstProblem(value, FIELDS)
  if (problem)
    throw new CapsuleError(
      `The capsule's field '${problem.path}' ${problem.missing ? 'is missing' : 'has the wrong type or value'}.`,
      problem.path,
    )
  const state = value.state as unknown as StateSnapshot
  try {
    const demo = checkSavedState(state, document)
    return { capsule: value as unknown as Capsule, demo }
  } catch (error) {
    if (!(error instanceof SavedStateError)) throw error
    const param = ['state', error.table === '(state)' ? error.field : `tables.${error.table}`]
    throw new CapsuleError(`The capsule's state is refused: ${error.message}.`, param.join('.'))
  }
}

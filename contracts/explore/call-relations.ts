import type { Difference } from './compare-answers.ts'
import { isObject } from './is-object.ts'

/**
 * What a call log's transcript must show on any target, though what was said is the target's own simulation (never
 * compared with the model's): its utterances in order of `start_seconds`, each an offset from `started_at` within
 * the call, none before the call connected (it rang the seconds its control-plane request asked for first).
 */
const ORDER = 'openapi/v1.yaml TranscriptEntry: "One utterance of a call, in order of `start_seconds`."'
const OFFSET =
  'openapi/v1.yaml TranscriptEntry.start_seconds: "Offset from `started_at` at which the utterance began"'
const RINGING =
  'mock-control.yaml startCall: a call rings `ring_seconds` "before it connects", and is talked in once connected'

/** Rounding of an offset to tenths (as the contract's examples write them) is allowed either way. */
const SLACK = 0.1

/**
 * Where the transcript of a call log answer breaks those rules; `ringSeconds` gives the seconds each placed call
 * (by the target's ID) was asked to ring.
 */
export function transcriptDifferences(body: unknown, ringSeconds: ReadonlyMap<string, number>): Difference[] {
  if (!isObject(body) || body.object !== 'call_log' || !Array.isArray(body.transcript)) return []
  const offsets = body.transcript.map((entry) =>
    isObject(entry) && typeof entry.start_seconds === 'number' ? entry.start_seconds : undefined,
  )
  if (offsets.some((offset) => offset === undefined)) return []
  const starts = offsets as number[]
  const found: Difference[] = []
  const differ = (at: number, target: string, model: string, decidedBy: string) =>
    found.push({ at: `body.transcript[${at}].start_seconds`, target, model, decidedBy })
  const disorder = starts.findIndex((start, i) => i > 0 && start < (starts[i - 1] as number))
  if (disorder > 0)
    differ(
      disorder,
      String(starts[disorder]),
      `at least ${starts[disorder - 1]} (the utterance before)`,
      ORDER,
    )
  const ring = typeof body.id === 'string' ? ringSeconds.get(body.id) : undefined
  const early = ring === undefined ? -1 : starts.findIndex((start) => start < ring - SLACK)
  if (early >= 0)
    differ(
      early,
      String(starts[early]),
      `at least ${ring} (the call rang ${ring} s before it connected)`,
      `${OFFSET}; ${RINGING}`,
    )
  const duration = body.duration_seconds
  const late = typeof duration === 'number' ? starts.findIndex((start) => start > duration + 1) : -1
  if (late >= 0)
    differ(late, String(starts[late]), `at most ${duration} (+1): the call's duration_seconds`, OFFSET)
  return found
}

import fc from 'fast-check'
import type { Contract } from '../contract/contract.ts'
import { BudgetExhausted, TargetUnreachable } from '../http/errors.ts'
import { creatingOperations, defaultPageSize } from './contract-shapes.ts'
import { ModelTime } from './model-time.ts'
import { DifferenceFound, type Recorded, Sequence, SequenceCut } from './sequence.ts'
import { createModel, type ModelFactory, type Side } from './sides.ts'
import type { KeyRole, SetupSpec, Step } from './step-types.ts'
import { setupArbitrary, stepArbitrary } from './steps.ts'

/** What an exploration is given. */
export interface ExploreOptions {
  contract: Contract
  target: Side
  /** The run's seed: the same seed generates the same sequences in the same order. */
  seed: number
  /** Stop starting sequences after this many ms (default 10 s), unless `sequences` is given. */
  timeMs?: number
  /** Run exactly this many sequences (no time bound on the search). */
  sequences?: number
  /** How long shrinking a difference may take (default: half the search time, at least 5 s). */
  shrinkMs?: number
  /** Most steps in one sequence (default 50). */
  maxSteps?: number
  /** Tags the accounts exploration makes. */
  label?: string
  /** Makes the model's platform (a fresh in-process mock by default). */
  model?: ModelFactory
  /** Told about progress (about once a second) and at the start. */
  onProgress?: (progress: ExploreProgress) => void
  /** Every key value the run sees is added here (reports redact them). */
  secrets?: Set<string>
}

export interface ExploreProgress {
  sequences: number
  requests: number
  elapsedMs: number
  phase: 'exploring' | 'shrinking'
}

/** A difference, shrunk, and replayed to confirm it. */
export interface FoundDifference {
  /** The steps of the shrunk sequence up to the difference, as replayed (setup first). */
  records: Recorded[]
  /** The setup of the sequence. */
  setup: SetupSpec
  /** How many steps the first failing sequence had, and the shrunk one. */
  originalSteps: number
  shrunkSteps: number
  /** fast-check's path to the counterexample (with the seed, it replays exactly this sequence). */
  path?: string
}

export interface ExploreResult {
  seed: number
  sequences: number
  requests: number
  durationMs: number
  /** Why exploration stopped before its time or sequences were used up. */
  stopped?: string
  difference?: FoundDifference
  /** A difference that did not happen again when its sequence was replayed (told, not failed). */
  unconfirmed?: FoundDifference
}

const DEFAULT_TIME_MS = 10_000
/** Shrinking takes at most this long by default (half the search time when that is longer). */
const MIN_SHRINK_MS = 4_500
/**
 * How many times a shrunk difference is replayed to confirm it (at most): near a window's end, real time may
 * decide whether a request is admitted, and with it whether a fault shows again.
 */
const REPLAYS = 4
/** Progress is told this often. */
const PROGRESS_MS = 2_500

/** A step of a generated sequence, as fast-check's model-based testing runs it. */
class ExploreCommand implements fc.AsyncCommand<{ steps: number }, Sequence, false> {
  constructor(readonly step: Step) {}
  check(): boolean {
    return true
  }
  async run(model: { steps: number }, sequence: Sequence): Promise<void> {
    model.steps++
    await sequence.run(this.step)
  }
  toString(): string {
    const { step } = this
    if (step.kind === 'burst')
      return `burst(${step.steps.map((s) => `${s.method ?? ''}${s.operationId}`).join(',')})`
    if (step.kind === 'edits') return `edits(${step.step.operationId})`
    if (step.kind === 'recreate') return `recreate(${step.create.operationId})`
    return step.kind === 'api' ? `${step.method ?? ''}${step.operationId}` : step.kind
  }
}

/** The key roles a sequence's steps use (undefined when its steps cannot be read: every key is made). */
function rolesOf(steps: Iterable<unknown>): Set<KeyRole> | undefined {
  const roles = new Set<KeyRole>()
  for (const item of steps) {
    // fast-check hands the commands wrapped (`cmd`), or as they are when replayed.
    const command = (item as { cmd?: unknown }).cmd ?? item
    if (!(command instanceof ExploreCommand)) return undefined
    const { step } = command
    if (step.kind === 'api' || step.kind === 'revoke') roles.add(step.key)
    if (step.kind === 'burst') for (const request of step.steps) roles.add(request.key)
    if (step.kind === 'scenario') for (const request of step.uses) roles.add(request.key)
    if (step.kind === 'edits') roles.add(step.step.key)
    if (step.kind === 'recreate') roles.add(step.create.key)
    if (step.kind === 'again' && step.key !== 'same') roles.add(step.key)
    if (step.kind === 'page' && step.key) roles.add(step.key)
  }
  return roles
}

/**
 * Differential exploration: fast-check generates sequences of v1 requests (every operation of the contract,
 * valid and invalid input from its schemas, every key the run holds, reused Idempotency-Keys, cursors and IDs
 * taken from earlier answers, clock moves, simulated calls) and runs each against the target and against the
 * model (the mock's engine in this process) set up the same way, comparing every answer as the contract reads
 * it. The first difference is shrunk (fast-check removes steps and simplifies values while the sequence still
 * differs) and replayed once to confirm it.
 */
export async function explore(options: ExploreOptions): Promise<ExploreResult> {
  const started = performance.now()
  const { contract, target } = options
  const secrets = options.secrets ?? new Set<string>()
  const label = options.label ?? String(options.seed)
  const start = Date.parse((await target.control.clock()).now)
  const model = await createModel(start, options.model)
  const time = new ModelTime((ms) => model.setNow(ms))
  const capabilities: { calls?: boolean } = {}
  const searchMs =
    options.sequences === undefined ? (options.timeMs ?? DEFAULT_TIME_MS) : Number.POSITIVE_INFINITY
  const shrinkMs =
    options.shrinkMs ?? Math.max(MIN_SHRINK_MS, Number.isFinite(searchMs) ? searchMs / 2 : MIN_SHRINK_MS * 6)
  let sequences = 0
  let requests = 0
  let serial = 0
  let firstFailureAt: number | undefined
  let firstFailureSteps = 0
  let stopped: string | undefined
  let fatal: unknown
  let lastProgress = 0
  const progress = (phase: ExploreProgress['phase']) => {
    const now = performance.now()
    if (now - lastProgress < PROGRESS_MS) return
    lastProgress = now
    options.onProgress?.({ sequences, requests, elapsedMs: now - started, phase })
  }

  const runSequence = async (
    setup: SetupSpec,
    steps: Iterable<fc.AsyncCommand<{ steps: number }, Sequence, boolean>>,
    keep?: (s: Sequence) => void,
  ) => {
    serial++
    const sequence = new Sequence({
      contract,
      target,
      model,
      time,
      capabilities,
      label,
      secrets,
      // Only the search is cut short by its time (a sequence of a slow target takes seconds): never a replay.
      timeIsUp: () =>
        keep === undefined && firstFailureAt === undefined && performance.now() - started > searchMs,
    })
    keep?.(sequence)
    try {
      await sequence.setup(setup, serial, rolesOf(steps))
      await fc.asyncModelRun(() => ({ model: { steps: 0 }, real: sequence }), steps)
    } finally {
      requests += sequence.requests
      await sequence.close()
    }
  }

  const property = fc.asyncProperty(
    setupArbitrary(creatingOperations(contract).length, defaultPageSize(contract) + 1),
    fc.commands([stepArbitrary(contract).map((step) => new ExploreCommand(step))], {
      maxCommands: options.maxSteps ?? 50,
      size: 'max',
    }),
    async (setup, steps) => {
      const now = performance.now()
      if (stopped !== undefined) throw new fc.PreconditionFailure(true)
      if (firstFailureAt === undefined && now - started > searchMs) throw new fc.PreconditionFailure(true)
      if (firstFailureAt !== undefined && now - firstFailureAt > shrinkMs)
        throw new fc.PreconditionFailure(true)
      progress(firstFailureAt === undefined ? 'exploring' : 'shrinking')
      try {
        await runSequence(setup, steps)
        if (firstFailureAt === undefined) sequences++
      } catch (error) {
        if (error instanceof SequenceCut) {
          if (firstFailureAt === undefined) sequences++
          return
        }
        if (error instanceof DifferenceFound) {
          if (firstFailureAt === undefined) {
            sequences++
            firstFailureAt = performance.now()
            firstFailureSteps = error.records.length - 1
          }
          throw error
        }
        if (error instanceof BudgetExhausted) stopped = `the request budget is spent (${error.message})`
        else {
          stopped = `an error stopped it: ${error instanceof Error ? error.message : String(error)}`
          fatal = error
        }
        throw new fc.PreconditionFailure(true)
      }
    },
  )
  lastProgress = performance.now()
  let difference: FoundDifference | undefined
  let unconfirmed: FoundDifference | undefined
  // A difference that does not happen again when replayed does not end the search: it goes on with what is left of
  // the sequences or the time, from the next seed (so that a run still repeats from its own seed).
  for (let round = 0; ; round++) {
    const details = await fc.check(property, {
      seed: options.seed + round,
      numRuns: options.sequences === undefined ? 1_000_000 : options.sequences - sequences,
      endOnFailure: false,
      verbose: 0,
    })
    if (fatal instanceof TargetUnreachable) throw fatal
    if (fatal !== undefined && sequences === 0) throw fatal
    if (!details.failed || !details.counterexample) break
    const [setup, steps] = details.counterexample as [SetupSpec, Iterable<ExploreCommand>]
    const commands = [...steps]
    let replayed: Sequence | undefined
    let confirmed = false
    // Replayed before it is told: a difference that real time alone made is not a fault.
    for (let attempt = 0; attempt < REPLAYS && !confirmed; attempt++) {
      try {
        await runSequence(setup, commands, (s) => {
          replayed = s
        })
      } catch (error) {
        if (!(error instanceof DifferenceFound) && !(error instanceof SequenceCut)) throw error
        confirmed = error instanceof DifferenceFound
      }
    }
    const found: FoundDifference = {
      records: replayed?.records ?? [],
      setup,
      originalSteps: firstFailureSteps,
      shrunkSteps: commands.length,
      path: details.counterexamplePath ?? undefined,
    }
    if (confirmed) {
      difference = found
      break
    }
    unconfirmed ??= { ...found, records: failingRecords(details.errorInstance) ?? found.records }
    firstFailureAt = undefined
    const left =
      options.sequences === undefined ? performance.now() - started < searchMs : sequences < options.sequences
    if (stopped !== undefined || !left) break
  }
  const result: ExploreResult = { seed: options.seed, sequences, requests, durationMs: 0, stopped }
  if (difference) result.difference = difference
  if (unconfirmed) result.unconfirmed = unconfirmed
  await model.close()
  result.durationMs = performance.now() - started
  return result
}

function failingRecords(error: unknown): Recorded[] | undefined {
  return error instanceof DifferenceFound ? error.records : undefined
}

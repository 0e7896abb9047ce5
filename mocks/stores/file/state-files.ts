import { existsSync, readFileSync } from 'node:fs'
import type { StateSnapshot } from '../../engine/state/change-set.ts'
import { fromLegacyState } from './legacy-state.ts'
import { decodeLine } from './line-codec.ts'

/** The files of a store at `path`: the snapshot, the current log, and the log a compaction was replacing. */
export function stateFiles(path: string) {
  return { snapshot: path, log: `${path}.log`, oldLog: `${path}.log.old`, lock: `${path}.lock` }
}

/** The first line of a snapshot file. */
export interface SnapshotHeader {
  format: 'voice-api-kit/state'
  version: 2
  /** The last change set the snapshot includes. */
  seq: number
}

/** One change set in a log: its sequence number, its changes as `[table, key, value]`, and a reset flag. */
export interface LogRecord {
  seq: number
  changes: [table: string, key: string, value: unknown][]
  reset?: true
}

/** A state file the mock cannot read: names the file, the line (record) and what is wrong. */
export class StateFileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    problem: string,
  ) {
    super(`${file}${line === undefined ? '' : `, line ${line}`}: ${problem}`)
    this.name = 'StateFileError'
  }
}

/** What reading a store's files found. */
export interface LoadedState {
  snapshot: StateSnapshot
  /** The last change set read. */
  seq: number
  /** Bytes of the current log that hold whole records (a torn tail is cut off there). */
  logBytes: number
  /** A record cut short by a crash at the end of the log, never acknowledged: dropped. */
  tornTail?: { file: string; line: number; bytes: number }
  /** The snapshot was a whole-state file of an earlier version of the mock. */
  legacy: boolean
}

const DAMAGED =
  'the file is damaged (move it away to start from the seeded state, or put back a copy you trust)'

function isLogRecord(value: unknown): value is LogRecord {
  const record = value as LogRecord
  return (
    typeof value === 'object' &&
    value !== null &&
    Number.isSafeInteger(record.seq) &&
    Array.isArray(record.changes) &&
    record.changes.every(
      (change) => Array.isArray(change) && typeof change[0] === 'string' && typeof change[1] === 'string',
    )
  )
}

/** Lines of a file with their numbers; the last one is `complete: false` when no newline ends it. */
function* linesOf(
  text: string,
): Generator<{ line: string; number: number; start: number; complete: boolean }> {
  let start = 0
  let number = 1
  while (start < text.length) {
    const end = text.indexOf('\n', start)
    if (end === -1) {
      yield { line: text.slice(start), number, start, complete: false }
      return
    }
    yield { line: text.slice(start, end), number, start, complete: true }
    start = end + 1
    number++
  }
}

function readSnapshot(file: string): {
  tables: Map<string, Map<string, unknown>>
  seq: number
  legacy: boolean
} {
  const text = readFileSync(file, 'utf8')
  if (text.startsWith('{')) {
    // A whole-state JSON file of an earlier version (`--state-file` before the log).
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      throw new StateFileError(
        file,
        undefined,
        `it is neither a state file of this mock nor JSON; ${DAMAGED}`,
      )
    }
    const snapshot = fromLegacyState(parsed, (problem) => new StateFileError(file, undefined, problem))
    return { tables: toMaps(snapshot), seq: 0, legacy: true }
  }
  const tables = new Map<string, Map<string, unknown>>()
  let seq = 0
  for (const { line, number, complete } of linesOf(text)) {
    const decoded = decodeLine(line)
    if (!decoded.ok || !complete)
      throw new StateFileError(
        file,
        number,
        `${decoded.ok ? 'it is cut short' : decoded.problem}; ${DAMAGED}`,
      )
    if (number === 1) {
      const header = decoded.value as SnapshotHeader
      if (
        header?.format !== 'voice-api-kit/state' ||
        header.version !== 2 ||
        !Number.isSafeInteger(header.seq)
      )
        throw new StateFileError(file, 1, 'it is not the header of a state file of this mock (version 2)')
      seq = header.seq
      continue
    }
    const entry = decoded.value
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'string')
      throw new StateFileError(file, number, `it is not a [table, key, record] entry; ${DAMAGED}`)
    tableOf(tables, entry[0]).set(entry[1], entry[2])
  }
  if (seq === 0 && text.length === 0) throw new StateFileError(file, undefined, `it is empty; ${DAMAGED}`)
  return { tables, seq, legacy: false }
}

function tableOf(tables: Map<string, Map<string, unknown>>, name: string): Map<string, unknown> {
  let table = tables.get(name)
  if (!table) {
    table = new Map()
    tables.set(name, table)
  }
  return table
}

function toMaps(snapshot: StateSnapshot): Map<string, Map<string, unknown>> {
  return new Map(Object.entries(snapshot.tables).map(([name, records]) => [name, new Map(records)]))
}

/**
 * Replays a log's records after `afterSeq` onto `tables`. A record cut short at the very end is a torn tail
 * (returned, not applied); anything wrong before the end is damage and throws. Records the state already holds
 * (`seq` up to `afterSeq`: a log a compaction was replacing) are skipped; every record follows the one before it
 * by exactly one, and the first one the state lacks is `afterSeq + 1`: a gap or a change of order is damage.
 */
function replayLog(file: string, tables: Map<string, Map<string, unknown>>, afterSeq: number) {
  const text = readFileSync(file, 'utf8')
  let seq = afterSeq
  let validBytes = 0
  /** The change set of the record before (none before the first). */
  let previous: number | undefined
  for (const { line, number, start, complete } of linesOf(text)) {
    const lineBytes = Buffer.byteLength(line) + 1
    const decoded = decodeLine(line)
    const last = !complete || start + line.length + 1 >= text.length
    if (!decoded.ok || !complete || !isLogRecord(decoded.value)) {
      const problem = !complete
        ? 'it is cut short'
        : decoded.ok
          ? 'it is not a change record'
          : decoded.problem
      if (last)
        return {
          seq,
          validBytes,
          tornTail: { file, line: number, bytes: Buffer.byteLength(text) - validBytes },
        }
      throw new StateFileError(file, number, `${problem}; ${DAMAGED}`)
    }
    validBytes += lineBytes
    const record = decoded.value
    // Inside a log each change set follows the one before it; the first one the state lacks follows the state.
    const due = previous === undefined ? seq + 1 : previous + 1
    if ((previous !== undefined && record.seq !== due) || record.seq > seq + 1)
      throw new StateFileError(
        file,
        number,
        `it holds change set ${record.seq} where ${due} was due: a record is missing or out of order; ${DAMAGED}`,
      )
    previous = record.seq
    if (record.seq <= seq) continue
    if (record.reset) for (const table of tables.values()) table.clear()
    for (const [name, key, value] of record.changes) {
      if (value === null) tableOf(tables, name).delete(key)
      else tableOf(tables, name).set(key, value)
    }
    seq = record.seq
  }
  return { seq, validBytes, tornTail: undefined }
}

/** Reads a store's files into one state, or undefined when the store has no files yet. */
export function readStateFiles(path: string): LoadedState | undefined {
  const files = stateFiles(path)
  if (!existsSync(files.snapshot)) {
    if (existsSync(files.log))
      throw new StateFileError(files.log, undefined, `its snapshot ${files.snapshot} is missing; ${DAMAGED}`)
    return undefined
  }
  const { tables, seq: snapshotSeq, legacy } = readSnapshot(files.snapshot)
  let seq = snapshotSeq
  let tornTail: LoadedState['tornTail']
  if (existsSync(files.oldLog)) {
    const replayed = replayLog(files.oldLog, tables, seq)
    seq = replayed.seq
    tornTail = replayed.tornTail
  }
  let logBytes = 0
  if (existsSync(files.log)) {
    const replayed = replayLog(files.log, tables, seq)
    seq = replayed.seq
    logBytes = replayed.validBytes
    tornTail = replayed.tornTail ?? tornTail
  }
  const snapshot: StateSnapshot = { version: 2, tables: {} }
  for (const [name, records] of tables) snapshot.tables[name] = [...records]
  return { snapshot, seq, logBytes, tornTail, legacy }
}

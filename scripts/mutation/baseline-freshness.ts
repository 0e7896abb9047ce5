/**
 * Whether a committed Stryker baseline still describes the code: the files a run mutates and the test files it
 * ran, compared with the sources the baseline recorded. CI re-tests only what changed since the baseline
 * (`npm run mutants:ci`); when most of the engine changed (a restructuring), that is a full run, hours on two
 * cores, which CI's time does not hold: the run then says what is stale instead of starting.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** A mutant as the baseline records it: its status and the tests (by ID) that killed and reached it. */
interface RecordedMutant {
  status?: string
  killedBy?: string[]
  coveredBy?: string[]
}

/** A baseline as Stryker's incremental file keeps it (mutation-testing-report-schema). */
interface Baseline {
  files?: Record<string, { source?: string; mutants?: RecordedMutant[] }>
  testFiles?: Record<string, { source?: string; tests?: { id: string; name: string }[] }>
}

/**
 * The tests of the baseline that the test set no longer has by name, and how many of today's it did not have.
 * Stryker knows tests by name: a test whose name changed (a check's title or code, in the contract run's test
 * names) is a new test, and the mutants the old one killed are tested again, as are the mutants that survived
 * while any test is new (it may reach them).
 */
export function testChanges(
  baseline: Baseline,
  names: readonly string[],
): { gone: Set<string>; added: number } {
  const recorded = Object.values(baseline.testFiles ?? {}).flatMap((file) => file.tests ?? [])
  const now = new Set(names)
  const before = new Set(recorded.map((test) => test.name))
  return {
    gone: new Set(recorded.filter((test) => !now.has(test.name)).map((test) => test.id)),
    added: names.filter((name) => !before.has(name)).length,
  }
}

/** What changed since the baseline. */
export interface Staleness {
  /** Mutated files that are new or whose source differs from the baseline's. */
  changed: string[]
  /** Files the baseline mutated that are gone or out of scope now. */
  gone: string[]
  /** Test files whose source differs from the baseline's, or that are gone. */
  tests: string[]
}

/** `**` any directories, `*` any characters but `/`; everything else literal. */
function globToRegExp(glob: string): RegExp {
  let pattern = ''
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string
    if (char === '*' && glob[i + 1] === '*') {
      pattern += glob[i + 2] === '/' ? '(?:.*/)?' : '.*'
      i += glob[i + 2] === '/' ? 2 : 1
    } else if (char === '*') pattern += '[^/]*'
    else pattern += char.replace(/[.+?^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${pattern}$`)
}

function walk(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir ? `${dir}/${entry.name}` : entry.name
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name.startsWith('.') ? [] : walk(root, path)
    return [path]
  })
}

/** The files a run's `mutate` patterns select (a `!` pattern takes files out), below the patterns' top folders. */
export function mutatedFiles(root: string, patterns: readonly string[]): string[] {
  const include = patterns.filter((p) => !p.startsWith('!')).map(globToRegExp)
  const exclude = patterns.filter((p) => p.startsWith('!')).map((p) => globToRegExp(p.slice(1)))
  const tops = new Set(patterns.map((p) => p.replace(/^!/, '').split('/')[0] as string))
  return [...tops]
    .flatMap((top) => walk(root, top))
    .filter((file) => include.some((re) => re.test(file)) && !exclude.some((re) => re.test(file)))
    .sort()
}

const sourceOf = (root: string, file: string) => {
  try {
    return readFileSync(join(root, file), 'utf8')
  } catch {
    return undefined
  }
}

/** How the baseline at `baselinePath` differs from the files `patterns` select under `root`. */
export function baselineStaleness(root: string, patterns: readonly string[], baseline: Baseline): Staleness {
  const files = mutatedFiles(root, patterns)
  const recorded = baseline.files ?? {}
  return {
    changed: files.filter((file) => recorded[file]?.source !== sourceOf(root, file)),
    gone: Object.keys(recorded).filter((file) => !files.includes(file)),
    tests: Object.entries(baseline.testFiles ?? {})
      .filter(([file, test]) => test.source !== undefined && test.source !== sourceOf(root, file))
      .map(([file]) => file),
  }
}

/** Whether nothing the baseline records has changed. */
export const isFresh = (staleness: Staleness) =>
  staleness.changed.length === 0 && staleness.gone.length === 0 && staleness.tests.length === 0

/**
 * About how many mutants re-testing what changed means: a changed file's mutants as the baseline counted them,
 * a new file's from its lines at the baseline's mutants per line, and, given the tests' changes by name
 * (`testChanges`), in the other files the mutants a test no longer there killed, and every one that survived or
 * no test reached while some test is new. Test files whose source changed are not counted (the mutants they
 * cover are re-tested too: an estimate from below).
 */
export function staleMutants(
  root: string,
  staleness: Staleness,
  baseline: Baseline,
  tests?: { gone: ReadonlySet<string>; added: number },
): number {
  const recorded = Object.values(baseline.files ?? {})
  const lines = (source: string | undefined) => (source ?? '').split('\n').length
  const perLine =
    recorded.reduce((sum, file) => sum + (file.mutants?.length ?? 0), 0) /
    Math.max(
      1,
      recorded.reduce((sum, file) => sum + lines(file.source), 0),
    )
  const changedFiles = staleness.changed.reduce((sum, file) => {
    const known = baseline.files?.[file]?.mutants?.length
    return sum + (known ?? lines(sourceOf(root, file)) * perLine)
  }, 0)
  const retested = (mutant: RecordedMutant) =>
    (mutant.status === 'Killed' && (mutant.killedBy ?? []).some((id) => tests?.gone.has(id))) ||
    ((tests?.added ?? 0) > 0 && (mutant.status === 'Survived' || mutant.status === 'NoCoverage'))
  const byTests = Object.entries(baseline.files ?? {})
    .filter(([file]) => !staleness.changed.includes(file))
    .reduce((sum, [, file]) => sum + (file.mutants ?? []).filter(retested).length, 0)
  return Math.round(changedFiles + byTests)
}

/**
 * Per-file mutation scores from Stryker's JSON report (mutation-testing-report-schema), and the thresholds
 * they must meet. Score = detected (killed or timed out) / valid (detected, survived or without coverage),
 * as Stryker computes it. "Ignored" mutants are left out, in two kinds told apart by their reason: those the
 * free-text ignorer leaves out (message text and the envelope's optional fields, which no fair suite can
 * tell apart: scripts/mutation/free-text-ignorer.mjs), and those marked equivalent in the code
 * (`// Stryker disable ...` with the reason).
 */
import { OUTSIDE_SAMPLE } from './sample-checker.mjs'

/** The part of Stryker's JSON report this reads. */
export interface MutationReport {
  files: Record<string, { mutants: { status: string; statusReason?: string }[] }>
}

export interface FileScore {
  file: string
  score: number
  killed: number
  timeout: number
  survived: number
  noCoverage: number
  /** Mutants of free text and optional fields, left out by the free-text ignorer. */
  freeText: number
  /** Mutants marked equivalent in the code (disabled there with the reason). */
  ignored: number
  errors: number
  /** Mutants a sampled run set aside untested (scripts/mutation/sample-checker.mjs): in no score. */
  outsideSample: number
}

/** The thresholds of the mutation run: overall, and higher ones for the files that guard access and limits. */
export interface Thresholds {
  overall: number
  /** Minimum score per file, by path relative to the repository. */
  files: Record<string, number>
}

/**
 * The contract run: 80% over its modules; authentication (auth.ts, secrets.ts), permissions, keys, rate limiting
 * and pagination at least 90%.
 */
export const THRESHOLDS: Thresholds = {
  overall: 80,
  files: Object.fromEntries(
    [
      'mocks/engine/auth.ts',
      'mocks/engine/secrets.ts',
      'mocks/engine/permissions.ts',
      'mocks/engine/keys/key-store.ts',
      'mocks/engine/rate-limiter.ts',
      'mocks/engine/collection.ts',
      'mocks/engine/resources/pagination.ts',
    ].map((file) => [file, 90]),
  ),
}

/** The reasons the free-text ignorer gives (scripts/mutation/free-text-ignorer.mjs). */
const FREE_TEXT_REASON = /^(Free text|An optional field)/

/** The own-tests run (the control plane, the state's machinery, scenarios, the mock's own guards): 80%. */
export const OWN_TESTS_THRESHOLDS: Thresholds = { overall: 80, files: {} }

/** Mutants with a verdict on behaviour: detected (killed, timed out), survived or without coverage. */
const valid = (score: Pick<FileScore, 'killed' | 'timeout' | 'survived' | 'noCoverage'>) =>
  score.killed + score.timeout + score.survived + score.noCoverage

function tally(file: string, mutants: readonly { status: string; statusReason?: string }[]): FileScore {
  const count = (status: string) => mutants.filter((m) => m.status === status).length
  const counts = {
    killed: count('Killed'),
    timeout: count('Timeout'),
    survived: count('Survived'),
    noCoverage: count('NoCoverage'),
  }
  const n = valid(counts)
  const outsideSample = mutants.filter(
    (m) => m.status === 'CompileError' && (m.statusReason ?? '').startsWith(OUTSIDE_SAMPLE),
  ).length
  return {
    file,
    score: n === 0 ? 100 : ((counts.killed + counts.timeout) / n) * 100,
    ...counts,
    freeText: mutants.filter((m) => m.status === 'Ignored' && FREE_TEXT_REASON.test(m.statusReason ?? ''))
      .length,
    ignored: mutants.filter((m) => m.status === 'Ignored' && !FREE_TEXT_REASON.test(m.statusReason ?? ''))
      .length,
    errors: count('CompileError') - outsideSample + count('RuntimeError'),
    outsideSample,
  }
}

/**
 * What a sampled run says of the whole (`npm run mutants -- --sample <fraction>`): how many mutants it tested of
 * how many, and the 95% Wilson interval of the score over all of them (the mutants of the sample are drawn
 * independently, each with the same chance). Undefined for a run that tested every mutant.
 */
export function sampleEstimate(
  total: FileScore,
): { tested: number; of: number; score: number; low: number; high: number } | undefined {
  if (total.outsideSample === 0) return undefined
  const n = valid(total)
  const of = n + total.outsideSample
  if (n === 0) return { tested: 0, of, score: Number.NaN, low: 0, high: 100 }
  const p = total.score / 100
  const z = 1.96
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n)
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n)) || 0
  return { tested: n, of, score: p * 100, low: (centre - half) * 100, high: (centre + half) * 100 }
}

/** The part of the report that says which test killed a mutant (Stryker's JSON report, schema 1 and later). */
export interface KillReport {
  files: Record<string, { mutants: { status: string; killedBy?: string[] }[] }>
  testFiles?: Record<string, { tests: { id: string; name: string }[] }>
}

/**
 * What exploration adds to the contract run: the mutants only exploration killed, and the score without them.
 * Exploration is the last test of the run (test/mutants/contract-checks.mutants.ts), and Stryker stops a mutant's
 * run at its first failing test, so a mutant killed by exploration survived every hand-written check that reaches
 * it. Timeouts cannot be told apart and count as detected in both scores.
 */
export function explorationShare(
  report: KillReport,
  total: FileScore,
  isExploration: (testName: string) => boolean = (name) => /\bexplore\//.test(name),
): { killedOnlyByExploration: number; scoreWithout: number } {
  const exploring = new Set(
    Object.values(report.testFiles ?? {})
      .flatMap((file) => file.tests)
      .filter((test) => isExploration(test.name))
      .map((test) => test.id),
  )
  const killedOnlyByExploration = Object.values(report.files)
    .flatMap((file) => file.mutants)
    .filter(
      (mutant) =>
        mutant.status === 'Killed' &&
        (mutant.killedBy ?? []).length > 0 &&
        (mutant.killedBy ?? []).every((id) => exploring.has(id)),
    ).length
  const n = valid(total)
  const detected = total.killed + total.timeout - killedOnlyByExploration
  return { killedOnlyByExploration, scoreWithout: n === 0 ? 100 : (detected / n) * 100 }
}

/** Scores of every file of the report, by path, and the total over all of them (`file: 'All files'`). */
export function fileScores(report: MutationReport): { files: FileScore[]; total: FileScore } {
  const files = Object.entries(report.files)
    .map(([file, { mutants }]) => tally(file.replace(/\\/g, '/'), mutants))
    .sort((a, b) => a.file.localeCompare(b.file))
  const total = tally(
    'All files',
    Object.values(report.files).flatMap((f) => f.mutants),
  )
  return { files, total }
}

/** Where the scores fall short: one line per shortfall, empty when every threshold is met. */
export function shortfalls(
  scores: { files: FileScore[]; total: FileScore },
  thresholds: Thresholds = THRESHOLDS,
  options: { partial?: boolean } = {},
): string[] {
  const problems: string[] = []
  if (!options.partial && scores.total.score < thresholds.overall)
    problems.push(`overall score ${scores.total.score.toFixed(2)}% is under ${thresholds.overall}%`)
  for (const [file, minimum] of Object.entries(thresholds.files)) {
    const score = scores.files.find((s) => s.file === file)
    if (!score) {
      if (!options.partial) problems.push(`${file} is not in the report`)
      continue
    }
    if (score.score < minimum) problems.push(`${file}: ${score.score.toFixed(2)}% is under ${minimum}%`)
  }
  return problems
}

/**
 * What CI's incremental run (`npm run mutants:ci`) holds a change to: no file, and not the whole engine, may
 * score below its threshold unless it already did in the committed baseline, and then not below the baseline's
 * score (a file the baseline lacks must meet its threshold, or the overall one). One line per regression.
 */
export function regressions(
  scores: { files: FileScore[]; total: FileScore },
  baseline: { files: FileScore[]; total: FileScore },
  thresholds: Thresholds = THRESHOLDS,
): string[] {
  const problems: string[] = []
  const below = (score: FileScore, minimum: number, before: FileScore | undefined) => {
    const required = before ? Math.min(minimum, before.score) : minimum
    // Scores are ratios of counts: a tolerance for rounding only, never for a mutant more or less.
    if (score.score >= required - 1e-9) return
    const was = before ? `; the baseline has ${before.score.toFixed(2)}%` : '; not in the baseline'
    problems.push(
      `${score.file}: ${score.score.toFixed(2)}% is under ${required.toFixed(2)}% (threshold ${minimum}%${was})`,
    )
  }
  below(scores.total, thresholds.overall, baseline.total)
  for (const score of scores.files)
    below(
      score,
      thresholds.files[score.file] ?? thresholds.overall,
      baseline.files.find((b) => b.file === score.file),
    )
  return problems
}

const COLUMNS = [
  'file',
  'score',
  'killed',
  'timeout',
  'survived',
  'no coverage',
  'free text (ignorer)',
  'marked equivalent',
] as const

function cells(score: FileScore): string[] {
  return [
    score.file,
    `${score.score.toFixed(2)}%`,
    String(score.killed),
    String(score.timeout),
    String(score.survived),
    String(score.noCoverage),
    String(score.freeText),
    String(score.ignored),
  ]
}

/** The scores as a Markdown table (the README's figure), total last. */
export function markdownTable(scores: { files: FileScore[]; total: FileScore }): string {
  const rows = [
    ...scores.files.map(cells),
    cells(scores.total).map((cell, i) => (i < 2 ? `**${cell}**` : cell)),
  ]
  return [
    `| ${COLUMNS.join(' | ')} |`,
    `|${COLUMNS.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n')
}

/** The scores as an aligned plain-text table, for the terminal. */
export function textTable(scores: { files: FileScore[]; total: FileScore }): string {
  const rows = [[...COLUMNS], ...scores.files.map(cells), cells(scores.total)]
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)))
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
        .join('  '),
    )
    .join('\n')
}

import { dirname, join } from 'node:path'
import type { ContractCheck } from '../../contracts/checks/types.ts'
import type { WaitEvent } from '../../contracts/http/pacer.ts'
import { entryOf, type ReportEntry } from '../../contracts/report/entries.ts'
import { toHtml } from '../../contracts/report/html.ts'
import { toJUnit } from '../../contracts/report/junit.ts'
import { formatSummary, type RunFigures } from '../../contracts/report/summary.ts'
import type { CheckOutcome } from '../../contracts/runner/outcome.ts'
import type { RunResult } from '../../contracts/runner/run-checks.ts'
import type { Session } from '../../contracts/runner/session.ts'
import type { ReporterName } from './flags.ts'
import { writeReportFile } from './report-file.ts'

/** What the command's reporter prints and writes. */
export interface ContractReporterOptions {
  /** What ran against what: the first line of every report. */
  header: string
  reporters: readonly ReporterName[]
  outputs: { junit?: string; html?: string }
  /** Where lines go (default stdout). */
  write?: (text: string) => void
}

/** `capsule-resources_agents_create-read.json` for the check `resources/agents/create-read`. */
export const capsuleFileName = (checkId: string) => `capsule-${checkId.replace(/[^A-Za-z0-9.-]+/g, '_')}.json`

const MARK = { passed: 'ok  ', failed: 'FAIL', skipped: 'skip', 'not-applicable': 'n/a ' } as const

/** The account's rate limit and the run's budget, as the command announces them. */
export function describePlan(session: Session): string {
  const windows = session.limits
    .map((w) =>
      w.quota !== undefined && w.seconds !== undefined
        ? `${w.name} ${w.quota} per ${w.seconds} s (${w.remaining} left)`
        : `${w.name} (${w.remaining} left)`,
    )
    .join(', ')
  const plan = session.plan ? `${session.plan} plan` : 'plan unknown'
  if (!Number.isFinite(session.budget))
    return `Account: ${plan}; no request budget (provisioned on the mock).`
  return `Account: ${plan}; rate limit ${windows || 'not advertised'}. Budget: at most ${session.budget} requests; the run waits rather than exceed a window.`
}

/**
 * The command's reporter on the runner's outcomes: a dot per check (or a line with `verbose`), a progress
 * line for every wait, then the per-area summary with what the run cost and covered, and the files
 * (JUnit XML, HTML), each written whole or not at all. Keys never appear: reports carry only the redacted
 * failures the runner produced.
 */
export function createContractReporter(options: ContractReporterOptions) {
  const write = options.write ?? ((text: string) => void process.stdout.write(`${text}\n`))
  const has = (name: ReporterName) => options.reporters.includes(name)
  const printing = has('summary') || has('verbose')
  const entries: ReportEntry[] = []
  /** The capsules written, by check id: the file name (beside the reports) or why it could not be written. */
  const capsules = new Map<string, { file?: string; path: string; problem?: string }>()
  // Beside the HTML report (its links are relative), else the JUnit report, else the working folder.
  const capsuleDir = dirname(options.outputs.html ?? options.outputs.junit ?? 'contract-report.html')
  let dots = ''

  const flush = () => {
    if (dots !== '') write(dots)
    dots = ''
  }
  const line = (text: string) => {
    flush()
    write(text)
  }

  return {
    entries,

    onOpen(session: Session): void {
      if (session.stateless && session.target.stateless !== true)
        line(
          'The target looks stateless (GET /agents/<unknown id> answered 200 with another agent): only the stateless subset runs. Pass --stateless to confirm, or check the implementation.',
        )
      if (printing) line(`${options.header}\n${describePlan(session)}`)
    },

    /** Writes the capsule of the mock before a failed check beside the reports (at once: it is not held). */
    onFailedCapsule(check: ContractCheck, capsule: string): void {
      const file = capsuleFileName(check.id)
      const path = join(capsuleDir, file)
      const problem = writeReportFile(path, capsule)
      capsules.set(check.id, problem ? { path, problem } : { file, path })
    },

    onOutcome(outcome: CheckOutcome): void {
      const entry = { ...entryOf(outcome), capsule: capsules.get(outcome.check.id)?.file }
      entries.push(entry)
      if (has('verbose'))
        line(
          `${MARK[entry.status]} ${entry.group} > ${entry.title}${entry.reason ? ` (${entry.reason})` : ''}`,
        )
      else if (printing) {
        dots += entry.status === 'failed' ? 'x' : '.'
        if (dots.length >= 80) flush()
      }
    },

    onWait(event: WaitEvent): void {
      if (!printing) return
      line(
        `  waiting ${event.seconds} s for ${event.reason}${event.request ? ` (next: ${event.request})` : ''}`,
      )
    },

    /**
     * Prints the summary and writes the files. `notices` are run-level problems (the run stopped, nothing
     * passed); returns them with any file that could not be written added.
     */
    finish(result: RunResult, notices: readonly string[]): string[] {
      const problems = [...notices]
      const figures: RunFigures = { stats: result.stats, coverage: result.coverage }
      if (printing) {
        line('')
        write(formatSummary(entries, options.header, result.durationMs, figures))
        const teardown = [`Teardown: removed ${result.teardown.removed} object(s) the run created.`]
        teardown.push(...result.teardown.notes)
        for (const problem of result.teardown.problems) teardown.push(`Teardown problem: ${problem}`)
        write(['', ...teardown].join('\n'))
      }
      if (result.teardown.problems.length > 0)
        problems.push(`Teardown could not remove everything: ${result.teardown.problems.join('; ')}`)
      const files: [string | undefined, string, () => string][] = [
        [
          options.outputs.junit,
          'JUnit report',
          () => toJUnit(entries, 'voice-api-kit contract suite', result.durationMs),
        ],
        [
          options.outputs.html,
          'HTML report',
          () =>
            toHtml({
              header: options.header,
              entries,
              durationMs: result.durationMs,
              figures,
              notices: problems,
              generatedAt: new Date(),
            }),
        ],
      ]
      for (const [id, written] of capsules) {
        if (written.problem) problems.push(`The capsule before ${id} ${written.problem}.`)
        else write(`Capsule of the mock before ${id} written to ${written.path}`)
      }
      for (const [path, what, render] of files) {
        if (!path) continue
        const failed = writeReportFile(path, render())
        if (failed) problems.push(`The ${what} ${failed}.`)
        else write(`${what} written to ${path}`)
      }
      return problems
    },
  }
}

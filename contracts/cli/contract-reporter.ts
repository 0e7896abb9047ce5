import { writeFileSync } from 'node:fs'
import type { Reporter, TestCase, TestModule } from 'vitest/node'

type UserConsoleLog = Parameters<NonNullable<Reporter['onUserConsoleLog']>>[0]

import { AREAS } from '../checks/types.ts'
import type { ReportEntry } from '../report/entries.ts'
import { toJUnit } from '../report/junit.ts'
import { formatSummary } from '../report/summary.ts'

const AREA_BY_TITLE = new Map(Object.entries(AREAS).map(([id, title]) => [title as string, id]))

/** What the command's reporter prints and writes. */
export interface ContractReporterOptions {
  /** First line of the summary: what ran against what. */
  header: string
  summary: boolean
  verbose: boolean
  junit?: string
  write?: (text: string) => void
}

/** A Vitest reporter that prints the suite's per-area summary and writes JUnit XML; keys never appear. */
export class ContractReporter implements Reporter {
  readonly entries: ReportEntry[] = []
  private readonly logs: string[] = []
  private readonly started = performance.now()
  private readonly write: (text: string) => void

  constructor(private readonly options: ContractReporterOptions) {
    this.write = options.write ?? ((text) => process.stdout.write(`${text}\n`))
  }

  onTestCaseResult(testCase: TestCase): void {
    const entry = toEntry(testCase)
    this.entries.push(entry)
    if (this.options.verbose) {
      const mark = { passed: 'ok  ', failed: 'FAIL', skipped: 'skip', 'not-applicable': 'n/a ' }[entry.status]
      this.write(`${mark} ${entry.group} > ${entry.title}${entry.reason ? ` (${entry.reason})` : ''}`)
    } else if (this.options.summary) process.stdout.write(entry.status === 'failed' ? 'x' : '.')
  }

  onUserConsoleLog(log: UserConsoleLog): void {
    this.logs.push(log.content.trimEnd())
  }

  onTestRunEnd(modules: readonly TestModule[], errors: readonly unknown[]): void {
    const duration = performance.now() - this.started
    for (const module of modules)
      for (const error of module.errors()) this.entries.push(setupEntry(error.message ?? String(error)))
    for (const error of errors)
      this.entries.push(setupEntry(error instanceof Error ? error.message : String(error)))
    if (this.options.summary) {
      if (!this.options.verbose) this.write('')
      this.write(formatSummary(this.entries, this.options.header, duration))
      if (this.logs.length > 0) this.write(['', ...this.logs].join('\n'))
    }
    if (this.options.junit) {
      writeFileSync(this.options.junit, toJUnit(this.entries, 'voice-api-kit contract suite', duration))
      this.write(`JUnit report written to ${this.options.junit}`)
    }
  }

  /** Whether any check failed (or the run could not start). */
  failed(): boolean {
    return this.entries.some((e) => e.status === 'failed')
  }
}

function setupEntry(message: string): ReportEntry {
  return {
    id: 'setup',
    area: 'setup',
    group: 'Setup',
    title: 'runs the suite',
    status: 'failed',
    failure: message,
    durationMs: 0,
    requests: 0,
  }
}

function toEntry(testCase: TestCase): ReportEntry {
  const meta = testCase.meta().contract
  const result = testCase.result()
  const group = testCase.parent.type === 'suite' ? testCase.parent.name : ''
  let top: TestCase['parent'] = testCase.parent
  while (top.type === 'suite' && top.parent.type === 'suite') top = top.parent
  const area = (meta?.area ??
    AREA_BY_TITLE.get(top.type === 'suite' ? top.name : '') ??
    'setup') as ReportEntry['area']
  const status =
    meta?.status ?? (result.state === 'failed' ? 'failed' : result.state === 'skipped' ? 'skipped' : 'passed')
  return {
    id: meta?.id ?? testCase.fullName,
    area,
    group,
    title: testCase.name,
    status: result.state === 'failed' ? 'failed' : status,
    reason: meta?.reason ?? (result.state === 'skipped' ? result.note : undefined),
    failure: result.errors?.map((e) => e.message).join('\n'),
    durationMs: testCase.diagnostic()?.duration ?? 0,
    requests: meta?.requests ?? 0,
  }
}

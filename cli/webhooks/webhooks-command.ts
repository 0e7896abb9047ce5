import { RECEIVER_AREAS } from '../../contracts/receiver/receiver-checks.ts'
import {
  formatReceiverSummary,
  receiverHeader,
  toReceiverHtml,
  toReceiverJUnit,
} from '../../contracts/receiver/receiver-reports.ts'
import {
  ReceiverConfigError,
  ReceiverUnreachableError,
  testReceiver,
} from '../../contracts/receiver/test-receiver.ts'
import type { ReportEntry } from '../../contracts/report/entries.ts'
import { TargetError } from '../../contracts/target/resolve-target.ts'
import type { CommandOutput } from '../contract/contract-command.ts'
import { checkWritable, writeReportFile } from '../contract/report-file.ts'
import { UsageError, withHint } from '../usage-error.ts'
import {
  hideSecretText,
  parseTestReceiverFlags,
  TEST_RECEIVER_HELP,
  type TestReceiverFlags,
} from './test-receiver-flags.ts'

/** `voice-api-kit webhooks --help`. */
export const WEBHOOKS_HELP = `Usage: voice-api-kit webhooks <command> [options]

Commands:
  test-receiver   grade your webhook receiver: signed events, deliveries it must refuse and ones it must
                  acknowledge (voice-api-kit webhooks test-receiver --help)`

const defaultOutput: CommandOutput = {
  out: (text) => void process.stdout.write(`${text}\n`),
  err: (text) => void process.stderr.write(`${text}\n`),
}

const MARK = { passed: 'ok  ', failed: 'FAIL', skipped: 'skip', 'not-applicable': 'n/a ' } as const

/** A check's progress line: `ok   Deliveries to refuse > Signature > refuses ... (3 ms)`. */
function progressLine(entry: ReportEntry): string {
  const area = (RECEIVER_AREAS as Record<string, string>)[entry.area] ?? entry.area
  return `${MARK[entry.status]} ${area} > ${entry.group} > ${entry.title} (${entry.durationMs.toFixed(0)} ms)`
}

/**
 * `voice-api-kit webhooks test-receiver [options]`: grades a receiver with `testReceiver`, printing a line
 * per check as it runs and the summary at the end, and writing the JUnit and HTML reports asked for. A usage
 * error (a flag, the URL, the secret's form, an --output that cannot be written) is one line and exit 2 before
 * anything is sent. The secret never appears in what is printed or written. Returns the exit code.
 */
export async function runTestReceiverCommand(
  argv: readonly string[],
  output: CommandOutput = defaultOutput,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  const usage = (message: string) => {
    const line = hideSecretText(message)
    output.err(`voice-api-kit webhooks test-receiver: ${withHint(line, 'See --help.')}`)
    return 2
  }
  let flags: TestReceiverFlags
  try {
    const parsed = parseTestReceiverFlags(argv, env)
    if (parsed === 'help') {
      output.out(TEST_RECEIVER_HELP)
      return 0
    }
    flags = parsed
    if (flags.outputs.junit) checkWritable(flags.outputs.junit)
    if (flags.outputs.html) checkWritable(flags.outputs.html)
  } catch (error) {
    if (error instanceof UsageError || error instanceof TargetError) return usage(error.message)
    throw error
  }
  const printing = flags.reporters.includes('summary')
  let result: Awaited<ReturnType<typeof testReceiver>>
  try {
    result = await testReceiver({ url: flags.url }, flags.secret, {
      timeoutMs: flags.timeoutMs,
      previousSecret: flags.previousSecret,
      onStart(plan) {
        if (printing)
          output.out(
            `${receiverHeader(plan)}\n${plan.checks} checks, one delivery at a time; each answer due within ${plan.timeoutMs / 1000} s.\n`,
          )
      },
      onResult(entry) {
        if (printing) output.out(progressLine(entry))
      },
    })
  } catch (error) {
    if (error instanceof ReceiverConfigError) return usage(error.message)
    if (error instanceof ReceiverUnreachableError) {
      output.err(`voice-api-kit webhooks test-receiver: ${hideSecretText(error.message)}`)
      return 1
    }
    throw error
  }
  if (printing) output.out(`\n${formatReceiverSummary(result)}`)
  const problems: string[] = []
  const files: [string | undefined, string, () => string][] = [
    [flags.outputs.junit, 'JUnit report', () => toReceiverJUnit(result)],
    [flags.outputs.html, 'HTML report', () => toReceiverHtml(result)],
  ]
  for (const [path, what, render] of files) {
    if (!path) continue
    const failed = writeReportFile(path, render())
    if (failed) problems.push(`The ${what} ${failed}.`)
    else output.out(`${what} written to ${path}`)
  }
  for (const problem of problems) output.err(`voice-api-kit webhooks test-receiver: ${problem}`)
  return result.passed && problems.length === 0 ? 0 : 1
}

/** `voice-api-kit webhooks <command>`. */
export async function runWebhooksCommand(
  argv: readonly string[],
  output: CommandOutput = defaultOutput,
): Promise<number> {
  const [command, ...rest] = argv
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    output.out(WEBHOOKS_HELP)
    return command === undefined ? 2 : 0
  }
  if (command === 'test-receiver') return runTestReceiverCommand(rest, output)
  output.err(
    `voice-api-kit webhooks: unknown command '${hideSecretText(command)}'. Commands: test-receiver. See --help.`,
  )
  return 2
}

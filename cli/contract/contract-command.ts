import { allChecks, selectChecks } from '../../contracts/checks/index.ts'
import { createContract } from '../../contracts/contract/contract.ts'
import { redactText } from '../../contracts/http/exchange.ts'
import type { CheckOutcome } from '../../contracts/runner/outcome.ts'
import { type RunResult, runChecks } from '../../contracts/runner/run-checks.ts'
import { ConfigError } from '../../contracts/runner/session.ts'
import {
  finishTarget,
  mergeTargets,
  TargetError,
  targetFromEnv,
  targetFromFile,
} from '../../contracts/target/resolve-target.ts'
import type { TargetConfig } from '../../contracts/target/target.ts'
import { withHint } from '../usage-error.ts'
import { createContractReporter } from './contract-reporter.ts'
import { CONTRACT_HELP, FLAG_NAMES, parseContractFlags } from './flags.ts'
import { checkWritable } from './report-file.ts'

/** Where the command prints: lines to stdout and one-line errors to stderr (tests capture both). */
export interface CommandOutput {
  out: (text: string) => void
  err: (text: string) => void
}

const defaultOutput: CommandOutput = {
  out: (text) => void process.stdout.write(`${text}\n`),
  err: (text) => void process.stderr.write(`${text}\n`),
}

function describeTarget(target: TargetConfig): string {
  const mode = [
    target.provision === 'mock' ? 'keys provisioned on the mock' : 'with the keys given',
    target.destructive ? 'destructive' : 'read-only',
    target.stateless === true ? 'stateless subset' : undefined,
  ].filter(Boolean)
  return `Contract suite against ${target.baseUrl} (${mode.join(', ')})`
}

/** Run-level problems that fail the run even when no check failed. */
function runNotices(result: RunResult, target: TargetConfig): string[] {
  const notices: string[] = []
  if (result.aborted)
    notices.push(
      `The run stopped: ${result.aborted.reason} ${result.aborted.notRun.length} check(s) did not run.`,
    )
  const count = (status: CheckOutcome['status']) => result.outcomes.filter((o) => o.status === status).length
  // A failed check says enough; a run with neither a pass nor a failure verified nothing.
  if (count('passed') === 0 && count('failed') === 0) {
    const why =
      count('not-applicable') > 0 && count('skipped') === 0
        ? ' every check was not applicable to this target'
        : ` ${count('skipped')} skipped, ${count('not-applicable')} not applicable`
    notices.push(
      `No check passed (${result.outcomes.length} ran:${why}): nothing was verified against ${target.baseUrl}. A run that verifies nothing fails; give the keys the skipped checks ask for, or check the base URL.`,
    )
  }
  return notices
}

/**
 * `voice-api-kit contract [options]`: runs the contract suite with its own runner (no test framework)
 * against a target described by flags, `VOICE_API_*` environment variables and an optional config file.
 * Usage errors (bad flags, an --output that cannot be written) exit 2 before any request; a run that cannot
 * start (unreachable target, refused key), that verified nothing or whose report could not be written exits
 * 1 with one line saying why, as does a run with a failed check. Returns the exit code.
 */
export async function runContractCommand(
  argv: string[],
  output: CommandOutput = defaultOutput,
): Promise<number> {
  let target: TargetConfig
  let flags: Exclude<ReturnType<typeof parseContractFlags>, 'help'>
  try {
    const parsed = parseContractFlags(argv)
    if (parsed === 'help') {
      output.out(CONTRACT_HELP)
      return 0
    }
    flags = parsed
    const fromFile = flags.config ? targetFromFile(flags.config) : {}
    target = finishTarget(mergeTargets(fromFile, targetFromEnv(process.env), flags.target))
    try {
      selectChecks(allChecks(createContract(target.contractPath)), target.areas)
    } catch (error) {
      throw new TargetError((error as Error).message.split('\n')[0] ?? 'Bad --area.')
    }
    if (flags.outputs.junit) checkWritable(flags.outputs.junit)
    if (flags.outputs.html) checkWritable(flags.outputs.html)
  } catch (error) {
    if (error instanceof TargetError) {
      output.err(`voice-api-kit contract: ${withHint(error.message, 'See --help.')}`)
      return 2
    }
    throw error
  }

  const header = describeTarget(target)
  const reporter = createContractReporter({
    header,
    reporters: flags.reporters,
    outputs: flags.outputs,
    write: output.out,
  })
  let result: RunResult
  try {
    result = await runChecks(target, {
      names: FLAG_NAMES,
      onOpen: (session) => reporter.onOpen(session),
      onOutcome: (outcome) => reporter.onOutcome(outcome),
      onWait: (event) => reporter.onWait(event),
      onProgress: (event) => reporter.onProgress(event),
      // Against the mock, each failed check leaves the mock's state before it, to reproduce it from.
      onFailedCapsule:
        target.provision === 'mock'
          ? (check, capsule) => reporter.onFailedCapsule(check, capsule)
          : undefined,
    })
  } catch (error) {
    const secrets = [target.secretKey, target.publishableKey, target.revokedKey, target.expiredKey].filter(
      (s): s is string => typeof s === 'string',
    )
    const message = error instanceof Error ? error.message : String(error)
    output.err(
      `voice-api-kit contract: ${error instanceof ConfigError ? '' : 'the run could not start: '}${redactText(message, secrets)}`,
    )
    return 1
  }
  const problems = reporter.finish(result, runNotices(result, target))
  for (const problem of problems) output.err(`voice-api-kit contract: ${problem}`)
  const failed = result.outcomes.some((o) => o.status === 'failed')
  return failed || problems.length > 0 ? 1 : 0
}

import { CONTRACT_HELP, parseContractFlags } from './cli/flags.ts'
import { runInVitest } from './cli/run-vitest.ts'
import {
  finishTarget,
  mergeTargets,
  TargetError,
  targetFromEnv,
  targetFromFile,
} from './target/resolve-target.ts'
import type { TargetConfig } from './target/target.ts'

function describeTarget(target: TargetConfig): string {
  const mode = [
    target.provision === 'mock' ? 'keys provisioned on the mock' : 'with the keys given',
    target.destructive ? 'destructive' : 'read-only',
    target.stateless === true ? 'stateless subset' : undefined,
  ].filter(Boolean)
  return `Contract suite against ${target.baseUrl} (${mode.join(', ')})`
}

/**
 * `voice-api-kit contract [options]`: runs the contract suite in Vitest against a target described by
 * flags, `VOICE_API_*` environment variables and an optional config file. Returns the exit code.
 */
export async function runContractCommand(argv: string[]): Promise<number> {
  try {
    const flags = parseContractFlags(argv)
    if (flags === 'help') {
      console.log(CONTRACT_HELP)
      return 0
    }
    const fromFile = flags.config ? targetFromFile(flags.config) : {}
    const target = finishTarget(mergeTargets(fromFile, targetFromEnv(process.env), flags.target))
    const reporter = await runInVitest(target, {
      header: describeTarget(target),
      summary: flags.reporters.includes('summary') || flags.reporters.includes('verbose'),
      verbose: flags.reporters.includes('verbose'),
      junit: flags.reporters.includes('junit') ? flags.output : undefined,
    })
    if (reporter.entries.length === 0) {
      console.error('voice-api-kit contract: no check ran.')
      return 1
    }
    return reporter.failed() ? 1 : 0
  } catch (error) {
    if (error instanceof TargetError) {
      console.error(`voice-api-kit contract: ${error.message} See --help.`)
      return 2
    }
    throw error
  }
}

import { basename, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startVitest } from 'vitest/node'
import type { TargetConfig } from '../target/target.ts'
import { ContractReporter, type ContractReporterOptions } from './contract-reporter.ts'

/** The test file the command runs, next to this module in the source (`.ts`) or the build (`.js`). */
const ENTRY = fileURLToPath(
  new URL(`../vitest/cli-entry${import.meta.url.endsWith('.js') ? '.js' : '.ts'}`, import.meta.url),
)

/** Runs the suite in Vitest against the target; resolves with the reporter (entries, failed()). */
export async function runInVitest(
  target: TargetConfig,
  reporting: ContractReporterOptions,
): Promise<ContractReporter> {
  const reporter = new ContractReporter(reporting)
  const vitest = await startVitest('test', [], {
    config: false,
    root: dirname(ENTRY),
    include: [basename(ENTRY)],
    exclude: [],
    watch: false,
    reporters: [reporter],
    provide: { contractTarget: target },
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  } as Parameters<typeof startVitest>[2])
  await vitest.close()
  return reporter
}

import { fileURLToPath } from 'node:url'
import { startVitest } from 'vitest/node'
import type { TargetConfig } from '../target/target.ts'
import { ContractReporter, type ContractReporterOptions } from './contract-reporter.ts'

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url))
const ENTRY = 'contracts/vitest/cli-entry.ts'

/** Runs the suite in Vitest against the target; resolves with the reporter (entries, failed()). */
export async function runInVitest(
  target: TargetConfig,
  reporting: ContractReporterOptions,
): Promise<ContractReporter> {
  const reporter = new ContractReporter(reporting)
  const vitest = await startVitest('test', [], {
    config: false,
    root: PACKAGE_ROOT,
    include: [ENTRY],
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

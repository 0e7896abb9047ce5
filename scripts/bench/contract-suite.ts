import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { removeOnExit, spawnChild } from './children.ts'
import { MOCK_TSX_ENTRY, RESULTS_DIR, ROOT } from './paths.ts'
import { startMockServer } from './servers.ts'
import { round } from './stats.ts'

/** Wall time of one full run of `voice-api-kit contract` against a local mock. */
export interface ContractSuiteFigures {
  status: 'ran' | 'skipped'
  wallMs?: number
  exitCode?: number | null
  note: string
}

const CONTRACT_CLI = join(ROOT, 'contracts', 'cli.ts')

/**
 * Starts a mock, runs the whole contract suite against it (`--provision mock --destructive`: every area,
 * writes and rate limits included), its process timed from spawn to exit, and stops both.
 */
export async function measureContractSuite(timeoutMs = 120_000): Promise<ContractSuiteFigures> {
  if (!existsSync(CONTRACT_CLI))
    return {
      status: 'skipped',
      note: '`npm run contract` is not there yet (no cli/contract/contract-command.ts): wired, skipped.',
    }
  const keysFile = removeOnExit(join(RESULTS_DIR, 'contract-keys.json'))
  const mock = await startMockServer(MOCK_TSX_ENTRY, keysFile)
  try {
    const suite = spawnChild('contract', [
      ...MOCK_TSX_ENTRY,
      'contract',
      '--base-url',
      `${mock.origin}/v1`,
      '--provision',
      'mock',
      '--destructive',
    ])
    const timer = setTimeout(() => suite.process.kill('SIGKILL'), timeoutMs)
    const exitCode = await new Promise<number | null>((resolve) => suite.process.once('exit', resolve))
    clearTimeout(timer)
    const wallMs = round(performance.now() - suite.startedAt, 0)
    return {
      status: 'ran',
      wallMs,
      exitCode,
      note: exitCode === 0 ? 'all checks passed' : `exit code ${exitCode} (the suite reported failures)`,
    }
  } finally {
    await mock.child.stop()
    rmSync(keysFile, { force: true })
  }
}

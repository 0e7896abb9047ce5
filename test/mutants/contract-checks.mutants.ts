import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe, expect, it, vi } from 'vitest'
import { allChecks } from '../../contracts/checks/index.ts'
import type { ContractCheck } from '../../contracts/checks/types.ts'
import { createContract } from '../../contracts/contract/contract.ts'
import { explorationCheck } from '../../contracts/explore/exploration-check.ts'
import type { ModelFactory } from '../../contracts/explore/sides.ts'
import { formatFailure } from '../../contracts/report/format-failure.ts'
import type { CheckOutcome } from '../../contracts/runner/outcome.ts'
import { openSession } from '../../contracts/runner/session.ts'
import { engineFetch } from './engine-fetch.ts'

const BASE_URL = 'http://mutant.test/v1'

/**
 * A short digest of what a check is (title and code), in its test name: Stryker's incremental mode knows
 * tests by name, so a changed check is a new test and the mutants it covers or killed are tested again.
 * (A change in the helpers the checks share is not seen: `npm run mutants` refreshes the whole baseline.)
 */
function digest(check: ContractCheck): string {
  let hash = 0x811c9dc5
  for (const char of `${check.title}\n${check.run.toString()}`)
    hash = Math.imul(hash ^ (char.codePointAt(0) ?? 0), 0x01000193) >>> 0
  return hash.toString(36)
}
/**
 * The project's own folder. Stryker runs this file in a copy of the project whose engine carries every mutant
 * (`.stryker-tmp/sandbox-*`); outside Stryker, this folder itself.
 */
const ORIGINAL_ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(
  /\.stryker-tmp\/sandbox-[^/]+\/$/,
  '',
)

/**
 * Exploration's model: the engine of the project's own files, never the mutated copy, so that a mutant shows as
 * a difference between the target (the mutated engine) and the model. (The model's clock is made by the suite
 * with the copy's clock module: a mutant there moves both sides alike, and the other checks must find it.)
 */
const unmutatedModel: ModelFactory = async (options) => {
  const platform = await import(pathToFileURL(join(ORIGINAL_ROOT, 'mocks/platform.ts')).href)
  return (platform as typeof import('../../mocks/platform.ts')).createMockPlatform(options)
}

/** Exploration in the mutation run: a fixed seed and number of sequences (the same test every run), no shrinking. */
const EXPLORATION = explorationCheck({ seed: 1, sequences: 20, shrinkSeconds: 0, model: unmutatedModel })

/** Fewer seeded call logs than the default 400: the checks need some, and seeding runs once per check. */
const SEED_SIZE = { callLogs: 50 }

/**
 * The contract suite as Stryker's test set (`npm run mutants`): each check is its own test, against a
 * fresh mock in this process, with its own session. Everything a check makes the engine do (seeding,
 * provisioning the keys, the check's requests) happens inside its test, so Stryker's per-test coverage
 * knows which checks reach a mutant and runs only those. A check must pass: a skip or a not-applicable
 * against the mock means a mutant changed what the suite could do, and kills it too.
 *
 * The webhook checks need the mock over the network, delivering to their receiver as the CLI's mock does:
 * they run against the same engine behind node:http on a free port, in this process.
 *
 * The engine's own response check (`checkResponses`) stays off: the suite, not the mock, must notice.
 */
describe('the contract suite against a fresh mock per check', () => {
  const checks = allChecks(createContract()).map((check) => (check.area === 'explore' ? EXPLORATION : check))
  for (const check of checks) {
    it(`${check.id} [${digest(check)}]`, async () => {
      const { createMockPlatform, startMockServer } = await freshMock()
      if (check.area === 'webhooks') {
        const server = await startMockServer({ checkResponses: false, seedSize: SEED_SIZE })
        try {
          const session = await openSession({ baseUrl: server.baseUrl, provision: 'mock', destructive: true })
          expectPassed(await session.run(check))
        } finally {
          await server.close()
          await server.platform.close()
        }
        return
      }
      const platform = await createMockPlatform({ seedSize: SEED_SIZE })
      const session = await openSession({
        baseUrl: BASE_URL,
        provision: 'mock',
        destructive: true,
        fetch: engineFetch(() => platform, BASE_URL),
      })
      expectPassed(await session.run(check))
    })
  }
})

/** The mutant Stryker has active in this run (`undefined` outside a mutant run: the dry run, plain Vitest). */
const activeMutant = () =>
  (globalThis as { __stryker__?: { activeMutant?: string } }).__stryker__?.activeMutant

/** The mock's modules as last loaded, and the mutant that was active then. */
let loaded: { mutant: string; modules: Awaited<ReturnType<typeof loadMock>> } | undefined

/**
 * The mock's modules as the active mutant makes them: the engine keeps what it builds once per process (the
 * contract's compiled validators, its route table, module-level constants), and built under another mutant (or
 * none) it would hide the mutant from every check in the worker. In a mutant run one mutant is active
 * throughout, so the checks share one load (loading the instrumented engine costs more than most checks); in
 * the dry run each check loads it afresh, so that per-test coverage gives each check the module-level code it
 * runs. The suite's own modules stay loaded once: the oracle is never mutated.
 */
async function freshMock() {
  const mutant = activeMutant()
  if (mutant !== undefined && loaded?.mutant === mutant) return loaded.modules
  const modules = await loadMock()
  if (mutant !== undefined) loaded = { mutant, modules }
  return modules
}

async function loadMock() {
  vi.resetModules()
  const [{ createMockPlatform }, { startMockServer }] = await Promise.all([
    import('../../mocks/platform.ts'),
    import('../support/contract-command.ts'),
  ])
  return { createMockPlatform, startMockServer }
}

/** A check must pass: a failure, a skip or a not-applicable all mean the mutant was noticed. */
function expectPassed(outcome: CheckOutcome): void {
  if (outcome.failure) expect.fail(formatFailure(outcome.failure))
  expect(outcome.status, outcome.reason).toBe('passed')
}

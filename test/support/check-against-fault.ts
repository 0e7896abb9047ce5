import { allChecks } from '../../contracts/checks/index.ts'
import { createContract } from '../../contracts/contract/contract.ts'
import { openSession } from '../../contracts/runner/session.ts'
import { createMockPlatform } from '../../mocks/platform.ts'
import { engineFetch } from '../mutants/engine-fetch.ts'
import { type Fault, faultyHandler } from '../reliability/support/faulty-handler.ts'

const checks = new Map(allChecks(createContract()).map((check) => [check.id, check]))

/**
 * Runs one check of the suite, as a provisioned destructive run does, against a fresh mock behind `fault` (the
 * correct engine wrapped in test code; `{}` for no fault), in this process.
 */
export async function runCheckAgainst(id: string, fault: Fault, baseUrl: string) {
  const check = checks.get(id)
  if (!check) throw new Error(`no check ${id}`)
  const platform = await createMockPlatform()
  const faulty = faultyHandler(platform, fault)
  const session = await openSession({
    baseUrl,
    provision: 'mock',
    destructive: true,
    fetch: engineFetch(() => faulty, baseUrl),
  })
  return session.run(check)
}

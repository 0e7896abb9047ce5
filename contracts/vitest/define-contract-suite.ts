import { afterAll, beforeAll, describe, it } from 'vitest'
import { allChecks, selectChecks } from '../checks/index.ts'
import { AREAS, type Area, type ContractCheck } from '../checks/types.ts'
import { createContract } from '../contract/contract.ts'
import { formatFailure } from '../report/format-failure.ts'
import type { CheckOutcome, TeardownReport } from '../runner/outcome.ts'
import { ConfigError, openSession, type Session } from '../runner/session.ts'
import type { TargetConfig } from '../target/target.ts'

export interface ContractSuiteOptions {
  /** Only these areas (`responses`, `authentication`, `authorization`, `resources`, `bad-input`, `rate-limits`, `webhooks`). */
  areas?: string[]
  /** Timeout of one check in ms (default: room for three waits of `maxWaitSeconds`, at least 120 s). */
  timeoutMs?: number
  /** Called with every outcome (reporters). */
  onOutcome?: (outcome: CheckOutcome) => void
  /** Called once the session is open (keys ready, plan known, statelessness detected). */
  onOpen?: (session: Session) => void
  /** Called with what teardown did. */
  onTeardown?: (report: TeardownReport) => void
}

/** The failure of a contract check, with the request, the response, the expectation and a curl command. */
export class ContractViolation extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ContractViolation'
    this.stack = `${this.name}: ${message}`
  }
}

/** Metadata every test of the suite carries (`task.meta.contract`), for reporters. */
export interface ContractTestMeta {
  id: string
  area: Area
  status: CheckOutcome['status']
  reason?: string
  requests: number
}

declare module 'vitest' {
  interface TaskMeta {
    contract?: ContractTestMeta
  }
}

/**
 * Registers the contract suite in the calling Vitest file: one `describe` per area and group, one `it` per
 * check. The session (keys, provisioning) opens in `beforeAll`; teardown runs in `afterAll` even when checks
 * fail. A check that cannot run is skipped with its reason (`ctx.skip(reason)`).
 *
 * ```ts
 * import { defineContractSuite } from 'voice-api-kit/contracts/vitest'
 * defineContractSuite({ baseUrl: process.env.VOICE_API_BASE_URL!, secretKey: process.env.VOICE_API_KEY })
 * ```
 */
export function defineContractSuite(
  target: TargetConfig | (() => TargetConfig | Promise<TargetConfig>),
  options: ContractSuiteOptions = {},
): void {
  const contractPath = typeof target === 'function' ? undefined : target.contractPath
  const areas = options.areas ?? (typeof target === 'function' ? undefined : target.areas)
  const checks = selectChecks(allChecks(createContract(contractPath)), areas)
  // A rate-limit check against a real target may wait for a whole window, then for Retry-After.
  const maxWait = typeof target === 'function' ? 60 : (target.maxWaitSeconds ?? 60)
  const timeoutMs = options.timeoutMs ?? Math.max(120_000, (3 * maxWait + 60) * 1000)
  let session: Session | undefined
  let openError: unknown

  // A run that cannot start (target unreachable, key refused) fails once, here: Vitest then skips the checks
  // instead of failing each of them with the same error.
  beforeAll(async () => {
    try {
      session = await openSession(typeof target === 'function' ? await target() : target)
      options.onOpen?.(session)
    } catch (error) {
      openError = error
      if (error instanceof ConfigError) throw new ContractViolation(error.message)
      throw error
    }
  }, 120_000)

  afterAll(async () => {
    if (!session) return
    const report = await session.close()
    options.onTeardown?.(report)
    if (report.problems.length > 0)
      throw new Error(`Teardown could not remove everything: ${report.problems.join('; ')}`)
  }, 120_000)

  for (const [area, title] of Object.entries(AREAS)) {
    const inArea = checks.filter((check) => check.area === area)
    if (inArea.length === 0) continue
    describe(title, () => {
      for (const [group, groupChecks] of groupBy(inArea)) {
        describe(group, () => {
          for (const check of groupChecks) registerCheck(check)
        })
      }
    })
  }

  function registerCheck(check: ContractCheck): void {
    it(
      check.title,
      async (ctx) => {
        if (!session) throw openError instanceof Error ? openError : new Error(String(openError))
        const outcome = await session.run(check)
        options.onOutcome?.(outcome)
        ctx.task.meta.contract = {
          id: check.id,
          area: check.area,
          status: outcome.status,
          reason: outcome.reason,
          requests: outcome.requests,
        }
        if (outcome.status === 'skipped' || outcome.status === 'not-applicable') ctx.skip(outcome.reason)
        if (outcome.failure) throw new ContractViolation(formatFailure(outcome.failure))
      },
      timeoutMs,
    )
  }
}

function groupBy(checks: readonly ContractCheck[]): Map<string, ContractCheck[]> {
  const groups = new Map<string, ContractCheck[]>()
  for (const check of checks) {
    const list = groups.get(check.group)
    if (list) list.push(check)
    else groups.set(check.group, [check])
  }
  return groups
}

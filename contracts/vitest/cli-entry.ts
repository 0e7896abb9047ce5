/**
 * The test file the `voice-api-kit contract` command runs in Vitest: the target comes from the command
 * through Vitest's `provide` / `inject`.
 */
import { inject } from 'vitest'
import type { TargetConfig } from '../target/target.ts'
import { defineContractSuite } from './define-contract-suite.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    contractTarget: TargetConfig
  }
}

const target = inject('contractTarget')
defineContractSuite(target, {
  onOpen(session) {
    if (session.stateless && target.stateless !== true)
      console.log(
        'The target looks stateless (GET /agents/<unknown id> answered 200 with another agent): only the stateless subset runs. Pass --stateless to confirm, or check the implementation.',
      )
  },
  onTeardown(report) {
    const lines = [`Teardown: removed ${report.removed} object(s) the run created.`, ...report.notes]
    for (const problem of report.problems) lines.push(`Teardown problem: ${problem}`)
    console.log(lines.join('\n'))
  },
})

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
defineContractSuite(target)

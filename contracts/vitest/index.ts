/**
 * `voice-api-kit/contracts/vitest`: the contract suite registered in your own Vitest project (Vitest is an
 * optional peer of the package, needed only for this entry).
 *
 * ```ts
 * import { defineContractSuite } from 'voice-api-kit/contracts/vitest'
 * defineContractSuite({ baseUrl: process.env.VOICE_API_BASE_URL!, secretKey: process.env.VOICE_API_KEY })
 * ```
 */
export {
  type ContractSuiteOptions,
  type ContractTestMeta,
  ContractViolation,
  defineContractSuite,
} from './define-contract-suite.ts'

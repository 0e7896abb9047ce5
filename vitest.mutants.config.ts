import { defineConfig } from 'vitest/config'

/**
 * Vitest for the mutation run (`npm run mutants`, StrykerJS): only the contract suite, one test per
 * check (test/mutants/contract-checks.mutants.ts), outside `npm test`.
 */
export default defineConfig({
  test: {
    include: ['test/mutants/**/*.mutants.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: ['dot'],
  },
})

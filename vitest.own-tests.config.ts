import { defineConfig } from 'vitest/config'

/**
 * Vitest for the own-tests mutation run (stryker.own-tests.config.mjs): the project's in-process tests of the
 * engine, its control plane, scenarios, state and stores. Tests that start processes (the CLI, the build, a
 * browser, Redis) are left out: a mutant in this process does not reach them.
 */
export default defineConfig({
  test: {
    include: [
      'test/mock/**/*.test.ts',
      'test/engine/**/*.test.ts',
      'test/calls/bad-input.test.ts',
      'test/calls/call-lifecycle.test.ts',
      'test/calls/mock-api-calls.test.ts',
      'test/calls/webhook-deliveries.test.ts',
      'test/stores/file-store.test.ts',
      'test/stores/scenarios-stored.test.ts',
      'test/stores/capsule-stores.test.ts',
      'test/contract-suite-scenarios.test.ts',
    ],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: ['dot'],
  },
})

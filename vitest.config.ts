import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    // Two files at a time: CI and this machine have 2 cores, and Vitest's default (cores - 1) ran the files one by
    // one (vitest 926 s, CI 16 m 23 s at 95df154); most files wait on sockets, a browser or a clock, not the CPU.
    maxWorkers: 2,
    hookTimeout: 30_000,
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
})

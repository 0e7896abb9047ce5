import { describe, expect, it } from 'vitest'
import { MUTANTS } from './mutants/faults.ts'
import { runMutationHarness } from './mutants/run-mutants.ts'

describe('the mutation harness', () => {
  it('lists at least 40 faulty variants of the mock, each a distinct fault switch', () => {
    const faults = MUTANTS.map((m) => m.fault)
    expect(faults.length).toBeGreaterThanOrEqual(40)
    expect(new Set(faults).size).toBe(faults.length)
  })

  it('kills at least 95% of the mutants with the contract suite', async () => {
    const report = await runMutationHarness(MUTANTS.map((m) => m.fault))
    const survivors = report.results.filter((r) => !r.killed).map((r) => r.fault)
    expect(report.score, `survivors: ${survivors.join(', ') || 'none'}`).toBeGreaterThanOrEqual(95)
  }, 300_000)
})

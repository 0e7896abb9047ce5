import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  type CommittedFigures,
  compareRatios,
  FIGURES_FILE,
  type Ratio,
  readCommittedFigures,
} from '../../scripts/bench/compare.ts'

const committed = (ratios: Record<string, Ratio>): CommittedFigures => ({
  date: '2026-11-27T00:00:00Z',
  command: 'npm run bench -- --save',
  machine: { node: '20', cpus: 2, cpuModel: 'x', loadAverage: [0.4, 0.5] },
  ratios,
})

describe('compareRatios', () => {
  const before = committed({
    'GET /v1/agents: mock / Prism': { value: 14, better: 'higher' },
    'GET /v1/agents: mock / bare node:http': { value: 0.9, better: 'higher' },
    'MSW GET /v1/agents: CPU time per request, mock / trivial handler': { value: 1.1, better: 'lower' },
  })

  it.each([
    ['a ratio 9% lower is within the tolerance', 'GET /v1/agents: mock / Prism', 12.7, false],
    ['a ratio more than 10% lower fell', 'GET /v1/agents: mock / Prism', 12.5, true],
    ['a ratio higher did not fall', 'GET /v1/agents: mock / bare node:http', 1.2, false],
    [
      'a cost ratio 9% higher is within the tolerance',
      'MSW GET /v1/agents: CPU time per request, mock / trivial handler',
      1.2,
      false,
    ],
    [
      'a cost ratio more than 10% higher fell',
      'MSW GET /v1/agents: CPU time per request, mock / trivial handler',
      1.22,
      true,
    ],
    [
      'a cost ratio lower did not fall',
      'MSW GET /v1/agents: CPU time per request, mock / trivial handler',
      0.9,
      false,
    ],
  ])('%s', (_name, ratio, now, fell) => {
    const better = before.ratios[ratio]?.better ?? 'higher'
    const { rows } = compareRatios(before, { [ratio]: { value: now, better } })
    expect(rows).toEqual([expect.objectContaining({ ratio, now, fell })])
  })

  it('leaves out what only one run measured, and names the run it compares with', () => {
    const comparison = compareRatios(before, {
      'GET /v1/agents: mock / Prism': { value: 14, better: 'higher' },
      'GET /v1/other: mock / Prism': { value: 1, better: 'higher' },
    })
    expect(comparison.rows.map((row) => row.ratio)).toEqual(['GET /v1/agents: mock / Prism'])
    expect(comparison.against).toEqual({ date: before.date, loadAverage: [0.4, 0.5] })
  })
})

describe('readCommittedFigures', () => {
  const folder = mkdtempSync(join(tmpdir(), 'bench-figures-'))
  afterAll(() => rmSync(folder, { recursive: true, force: true }))

  it('reads the committed figures of the repository', () => {
    const figures = readCommittedFigures(FIGURES_FILE)
    expect(Object.keys(figures.ratios)).toContain('GET /v1/agents: mock / Prism')
    for (const ratio of Object.values(figures.ratios)) expect(ratio.value).toBeGreaterThan(0)
  })

  it.each([
    ['a missing file', undefined, /No committed figures at .*: run 'npm run bench -- --save'/],
    ['a file that is not JSON', 'not json', /is not a figures file .*--save/],
    ['a file without ratios', '{"date":"x"}', /is not a figures file \(no ratios\)/],
  ])('refuses %s, saying what to do', (_name, content, message) => {
    const file = join(folder, `${Math.random()}.json`)
    if (content !== undefined) writeFileSync(file, content)
    expect(() => readCommittedFigures(file)).toThrow(message)
  })
})

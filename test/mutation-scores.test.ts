import { describe, expect, it } from 'vitest'
import {
  inSample,
  OUTSIDE_SAMPLE,
  projectPath,
  sampleFromEnvironment,
} from '../scripts/mutation/sample-checker.mjs'
import {
  explorationShare,
  fileScores,
  markdownTable,
  regressions,
  sampleEstimate,
  shortfalls,
  textTable,
} from '../scripts/mutation/scores.ts'

const mutants = (statuses: Record<string, number>) =>
  Object.entries(statuses).flatMap(([status, n]) => Array.from({ length: n }, () => ({ status })))

const report = {
  files: {
    'mocks/engine/auth.ts': {
      mutants: [
        ...mutants({ Killed: 17, Timeout: 1, Survived: 2, Ignored: 3 }),
        { status: 'Ignored', statusReason: "Free text: an ApiError's message." },
        {
          status: 'Ignored',
          statusReason: 'An optional field: error.param (docs/decisions/011-allowed-forms.md).',
        },
      ],
    },
    'mocks/engine/cors.ts': { mutants: mutants({ Killed: 6, Survived: 1, NoCoverage: 1, CompileError: 1 }) },
  },
}

describe('fileScores', () => {
  it('counts killed and timed-out mutants as detected, and leaves ignored and erroneous ones out, free text apart from marks', () => {
    const { files, total } = fileScores(report)
    expect(files.map((f) => [f.file, f.score])).toEqual([
      ['mocks/engine/auth.ts', 90],
      ['mocks/engine/cors.ts', 75],
    ])
    expect(files[0]).toMatchObject({
      killed: 17,
      timeout: 1,
      survived: 2,
      noCoverage: 0,
      freeText: 2,
      ignored: 3,
    })
    expect(total).toMatchObject({ file: 'All files', killed: 23, timeout: 1, survived: 3, noCoverage: 1 })
    expect(total.score).toBeCloseTo((24 / 28) * 100)
  })
})

describe('a sampled run (npm run mutants -- --sample)', () => {
  const outside = (n: number) =>
    Array.from({ length: n }, () => ({
      status: 'CompileError',
      statusReason: `${OUTSIDE_SAMPLE} (0.2, seed 1): not tested`,
    }))
  const sampled = {
    files: {
      'mocks/engine/control/accounts.ts': {
        mutants: [...mutants({ Killed: 80, Survived: 15, NoCoverage: 5, CompileError: 1 }), ...outside(400)],
      },
    },
  }

  it('leaves the mutants set aside out of every score and of the errors, and estimates the whole with an interval', () => {
    const { total } = fileScores(sampled)
    expect(total).toMatchObject({ killed: 80, survived: 15, noCoverage: 5, errors: 1, outsideSample: 400 })
    expect(total.score).toBe(80)
    const estimate = sampleEstimate(total)
    expect(estimate).toMatchObject({ tested: 100, of: 500, score: 80 })
    // The 95% Wilson interval of 80 of 100: 71.1% to 86.7%.
    expect(estimate?.low).toBeCloseTo(71.14, 1)
    expect(estimate?.high).toBeCloseTo(86.7, 1)
  })

  it('says nothing of a sample for a run that tested every mutant', () => {
    expect(sampleEstimate(fileScores(report).total)).toBeUndefined()
  })

  it('draws each mutant in or out by what it is and the seed, the same wherever Stryker copied the file', () => {
    const at = (fileName: string, line: number) => ({
      fileName,
      location: { start: { line, column: 4 } },
      mutatorName: 'EqualityOperator',
      replacement: 'a <= b',
    })
    const lines = Array.from({ length: 2000 }, (_, i) => i)
    const drawn = lines.filter((line) => inSample(at('/work/p/mocks/engine/a.ts', line), 0.2, 1))
    // About a fifth, and another seed draws others.
    expect(drawn.length).toBeGreaterThan(340)
    expect(drawn.length).toBeLessThan(460)
    const other = lines.filter((line) => inSample(at('/work/p/mocks/engine/a.ts', line), 0.2, 2))
    expect(other).not.toEqual(drawn)
    expect(
      lines.every(
        (line) =>
          inSample(at('/x/.stryker-tmp/sandbox-Ab12/mocks/engine/a.ts', line), 0.2, 1) ===
          inSample(at('/y/.stryker-tmp/sandbox-Zz99/mocks/engine/a.ts', line), 0.2, 1),
      ),
    ).toBe(true)
    expect(projectPath('/x/.stryker-tmp/sandbox-Ab12/mocks/engine/a.ts')).toBe('mocks/engine/a.ts')
    expect(lines.every((line) => inSample(at('mocks/engine/a.ts', line), 1, 7))).toBe(true)
  })

  it('refuses a fraction or seed that is not one', () => {
    expect(sampleFromEnvironment({ VOICE_MUTANT_SAMPLE: '0.25', VOICE_MUTANT_SAMPLE_SEED: '3' })).toEqual({
      fraction: 0.25,
      seed: 3,
    })
    expect(() => sampleFromEnvironment({ VOICE_MUTANT_SAMPLE: '0' })).toThrow(/fraction in \(0, 1\]/)
    expect(() => sampleFromEnvironment({ VOICE_MUTANT_SAMPLE: '1.5' })).toThrow(/fraction/)
    expect(() =>
      sampleFromEnvironment({ VOICE_MUTANT_SAMPLE: '0.5', VOICE_MUTANT_SAMPLE_SEED: 'x' }),
    ).toThrow(/SEED must be an integer/)
  })
})

describe('explorationShare (what exploration adds to the contract run)', () => {
  it('counts the mutants whose only killer is exploration, and scores the run without them', () => {
    const killed = (by: string) => ({ status: 'Killed', killedBy: [by] })
    const report = {
      files: {
        'mocks/engine/a.ts': {
          mutants: [killed('1'), killed('1'), killed('9'), { status: 'Survived' }, { status: 'Timeout' }],
        },
        'mocks/engine/b.ts': {
          mutants: [killed('2'), killed('9'), { status: 'Killed' }, { status: 'NoCoverage' }],
        },
      },
      testFiles: {
        'test/mutants/contract-checks.mutants.ts': {
          tests: [
            {
              id: '1',
              name: 'the contract suite against a fresh mock per check authentication/missing [abc]',
            },
            { id: '2', name: 'the contract suite against a fresh mock per check responses/getUser [def]' },
            { id: '9', name: 'the contract suite against a fresh mock per check explore/differential [xyz]' },
          ],
        },
      },
    }
    const { total } = fileScores(report)
    expect(total.score).toBeCloseTo((7 / 9) * 100)
    const share = explorationShare(report, total)
    expect(share.killedOnlyByExploration).toBe(2)
    expect(share.scoreWithout).toBeCloseTo((5 / 9) * 100)
  })
})

describe('shortfalls', () => {
  const thresholds = { overall: 80, files: { 'mocks/engine/auth.ts': 90, 'mocks/engine/keys.ts': 90 } }

  it('names the overall score, each guarded file under its minimum, and guarded files missing', () => {
    expect(shortfalls(fileScores(report), { ...thresholds, overall: 90 })).toEqual([
      'overall score 85.71% is under 90%',
      'mocks/engine/keys.ts is not in the report',
    ])
    const worse = {
      files: { ...report.files, 'mocks/engine/keys.ts': { mutants: mutants({ Killed: 8, Survived: 2 }) } },
    }
    expect(shortfalls(fileScores(worse), thresholds)).toEqual(['mocks/engine/keys.ts: 80.00% is under 90%'])
  })

  it('judges only the files present in a partial run', () => {
    expect(shortfalls(fileScores(report), { ...thresholds, overall: 99 }, { partial: true })).toEqual([])
  })
})

describe('the score tables', () => {
  it('prints a row per file and the total, as Markdown and as aligned text', () => {
    const markdown = markdownTable(fileScores(report)).split('\n')
    expect(markdown[0]).toBe(
      '| file | score | killed | timeout | survived | no coverage | free text (ignorer) | marked equivalent |',
    )
    expect(markdown[2]).toBe('| mocks/engine/auth.ts | 90.00% | 17 | 1 | 2 | 0 | 2 | 3 |')
    expect(markdown.at(-1)).toBe('| **All files** | **85.71%** | 23 | 1 | 3 | 1 | 2 | 3 |')
    const text = textTable(fileScores(report)).split('\n')
    expect(text).toHaveLength(4)
    expect(new Set(text.map((line) => line.length)).size).toBe(1)
  })
})

describe('regressions (the CI gate of the incremental run)', () => {
  const thresholds = { overall: 80, files: { 'mocks/engine/auth.ts': 90 } }
  const scoresOf = (files: Record<string, Record<string, number>>) =>
    fileScores({
      files: Object.fromEntries(Object.entries(files).map(([file, s]) => [file, { mutants: mutants(s) }])),
    })
  const baseline = scoresOf({
    'mocks/engine/auth.ts': { Killed: 19, Survived: 1 },
    'mocks/engine/cors.ts': { Killed: 6, Survived: 4 },
  })

  it('accepts the baseline itself, and a file that stays at or above its threshold though lower than before', () => {
    expect(regressions(baseline, baseline, thresholds)).toEqual([])
    const slightlyWorse = scoresOf({
      'mocks/engine/auth.ts': { Killed: 18, Survived: 2 },
      'mocks/engine/cors.ts': { Killed: 7, Survived: 3 },
    })
    expect(regressions(slightlyWorse, baseline, thresholds)).toEqual([])
  })

  it('names a file that falls under both its threshold and its baseline', () => {
    const worse = scoresOf({
      'mocks/engine/auth.ts': { Killed: 19, Survived: 1 },
      'mocks/engine/cors.ts': { Killed: 5, Survived: 5 },
    })
    expect(regressions(worse, baseline, thresholds)).toEqual([
      'mocks/engine/cors.ts: 50.00% is under 60.00% (threshold 80%; the baseline has 60.00%)',
    ])
  })

  it('holds a guarded file to its own threshold once the baseline meets it, and a new file to the overall one', () => {
    const changed = scoresOf({
      'mocks/engine/auth.ts': { Killed: 17, Survived: 3 },
      'mocks/engine/cors.ts': { Killed: 6, Survived: 4 },
      'mocks/engine/new.ts': { Killed: 7, Survived: 3 },
    })
    expect(regressions(changed, baseline, thresholds)).toEqual([
      'All files: 75.00% is under 80.00% (threshold 80%; the baseline has 83.33%)',
      'mocks/engine/auth.ts: 85.00% is under 90.00% (threshold 90%; the baseline has 95.00%)',
      'mocks/engine/new.ts: 70.00% is under 80.00% (threshold 80%; not in the baseline)',
    ])
  })
})

import { describe, expect, it } from 'vitest'
import { fileScores, markdownTable, regressions, shortfalls, textTable } from '../scripts/mutation/scores.ts'

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

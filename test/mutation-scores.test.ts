import { describe, expect, it } from 'vitest'
import { fileScores, markdownTable, shortfalls, textTable } from '../scripts/mutation/scores.ts'

const mutants = (statuses: Record<string, number>) =>
  Object.entries(statuses).flatMap(([status, n]) => Array.from({ length: n }, () => ({ status })))

const report = {
  files: {
    'mocks/engine/auth.ts': { mutants: mutants({ Killed: 17, Timeout: 1, Survived: 2, Ignored: 3 }) },
    'mocks/engine/cors.ts': { mutants: mutants({ Killed: 6, Survived: 1, NoCoverage: 1, CompileError: 1 }) },
  },
}

describe('fileScores', () => {
  it('counts killed and timed-out mutants as detected, and leaves ignored and erroneous ones out', () => {
    const { files, total } = fileScores(report)
    expect(files.map((f) => [f.file, f.score])).toEqual([
      ['mocks/engine/auth.ts', 90],
      ['mocks/engine/cors.ts', 75],
    ])
    expect(files[0]).toMatchObject({ killed: 17, timeout: 1, survived: 2, noCoverage: 0, ignored: 3 })
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
      '| file | score | killed | timeout | survived | no coverage | equivalent (marked) |',
    )
    expect(markdown[2]).toBe('| mocks/engine/auth.ts | 90.00% | 17 | 1 | 2 | 0 | 3 |')
    expect(markdown.at(-1)).toBe('| **All files** | **85.71%** | 23 | 1 | 3 | 1 | 3 |')
    const text = textTable(fileScores(report)).split('\n')
    expect(text).toHaveLength(4)
    expect(new Set(text.map((line) => line.length)).size).toBe(1)
  })
})

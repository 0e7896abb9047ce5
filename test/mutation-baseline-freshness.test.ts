import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  baselineStaleness,
  isFresh,
  mutatedFiles,
  staleMutants,
  testChanges,
} from '../scripts/mutation/baseline-freshness.ts'

// CI re-tests only what changed since the committed Stryker baseline, and says so instead of starting when
// that would not fit its time (scripts/mutants.ts --ci).

let root = ''
const write = (file: string, text: string) => {
  mkdirSync(join(root, file, '..'), { recursive: true })
  writeFileSync(join(root, file), text)
}
afterEach(() => rmSync(root, { recursive: true, force: true }))

function project() {
  root = mkdtempSync(join(tmpdir(), 'freshness-'))
  write('src/a.ts', 'a\n')
  write('src/deep/b.ts', 'b\nb\n')
  write('src/own/c.ts', 'c\n')
  write('src/d.js', 'd\n')
  write('test/t.ts', 't\n')
}
const PATTERNS = ['src/**/*.ts', '!src/own/**/*.ts']
const mutants = (n: number) => Array.from({ length: n }, () => ({}))

describe('the freshness of a mutation baseline', () => {
  it('selects files as the mutate patterns do, `!` taking some out', () => {
    project()
    expect(mutatedFiles(root, PATTERNS)).toEqual(['src/a.ts', 'src/deep/b.ts'])
  })

  it('is fresh when every mutated file and test file is as the baseline recorded it', () => {
    project()
    const baseline = {
      files: { 'src/a.ts': { source: 'a\n' }, 'src/deep/b.ts': { source: 'b\nb\n' } },
      testFiles: { 'test/t.ts': { source: 't\n' } },
    }
    expect(isFresh(baselineStaleness(root, PATTERNS, baseline))).toBe(true)
  })

  it('names changed, new and gone files and changed tests, and estimates the mutants to re-test', () => {
    project()
    write('src/new.ts', 'n\nn\nn\n')
    const baseline = {
      files: {
        'src/a.ts': { source: 'a-before\n', mutants: mutants(5) },
        'src/deep/b.ts': { source: 'b\nb\n', mutants: mutants(3) },
        'src/old.ts': { source: 'o\n', mutants: mutants(1) },
      },
      testFiles: { 'test/t.ts': { source: 't-before\n' } },
    }
    const staleness = baselineStaleness(root, PATTERNS, baseline)
    expect(staleness).toEqual({
      changed: ['src/a.ts', 'src/new.ts'],
      gone: ['src/old.ts'],
      tests: ['test/t.ts'],
    })
    expect(isFresh(staleness)).toBe(false)
    // a.ts: its 5 recorded mutants; new.ts: 4 lines (3 and the last empty one) at 9 mutants / 7 lines.
    expect(staleMutants(root, staleness, baseline)).toBe(Math.round(5 + 4 * (9 / 7)))
  })

  it('counts, in files that did not change, the mutants a renamed test killed and, once a test is new, those that survived', () => {
    project()
    const mutant = (status: string, killedBy: string[] = []) => ({ status, killedBy })
    const baseline = {
      files: {
        'src/a.ts': {
          source: 'a\n',
          mutants: [
            mutant('Killed', ['0']),
            mutant('Killed', ['1']),
            mutant('Survived'),
            mutant('NoCoverage'),
          ],
        },
        'src/deep/b.ts': { source: 'b\nb\n', mutants: [mutant('Killed', ['1']), mutant('Timeout')] },
      },
      testFiles: {
        'test/t.ts': {
          source: 't\n',
          tests: [
            { id: '0', name: 'suite check/one [aaa]' },
            { id: '1', name: 'suite check/two [bbb]' },
          ],
        },
      },
    }
    const staleness = baselineStaleness(root, PATTERNS, baseline)
    expect(isFresh(staleness)).toBe(true)
    // The same tests: nothing to re-test.
    const same = testChanges(baseline, ['suite check/one [aaa]', 'suite check/two [bbb]'])
    expect(same).toEqual({ gone: new Set(), added: 0 })
    expect(staleMutants(root, staleness, baseline, same)).toBe(0)
    // check/two changed (a new digest): the two mutants it killed, and the two no test killed.
    const changed = testChanges(baseline, ['suite check/one [aaa]', 'suite check/two [ccc]'])
    expect(changed).toEqual({ gone: new Set(['1']), added: 1 })
    expect(staleMutants(root, staleness, baseline, changed)).toBe(4)
  })
})

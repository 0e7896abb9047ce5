import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..')

/** Every file of the repository git knows of, but the mutation baseline (test names, not citations). */
function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter(
      (file) =>
        file !== '' && file !== 'test/mutants/stryker-incremental.json' && existsSync(join(ROOT, file)),
    )
}

describe('the design record', () => {
  const files = trackedFiles().map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }))

  it('resolves every citation of a decision to a page in docs/decisions/', () => {
    const unresolved: string[] = []
    let cited = 0
    for (const { file, text } of files)
      for (const [path] of text.matchAll(/docs\/decisions\/[0-9]{3}-[a-z0-9-]+\.md/g)) {
        cited++
        if (!existsSync(join(ROOT, path))) unresolved.push(`${file}: ${path}`)
      }
    expect(unresolved).toEqual([])
    expect(cited).toBeGreaterThan(50)
  })

  it('cites nothing outside the repository (no decisions.md, no ../shared)', () => {
    const outside = files
      .filter(({ file }) => file !== 'test/decision-citations.test.ts')
      .filter(({ text }) => /\bdecisions\.md\b|\.\.\/shared\//.test(text))
      .map(({ file }) => file)
    expect(outside).toEqual([])
  })
})

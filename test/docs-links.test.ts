import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..')

/** The Markdown pages a reader follows: the README, the changelog and everything under docs/. */
function pages(): string[] {
  const walk = (folder: string): string[] =>
    readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? walk(join(folder, entry.name))
        : entry.name.endsWith('.md')
          ? [join(folder, entry.name)]
          : [],
    )
  return ['README.md', 'CHANGELOG.md', 'contracts/README.md', ...walk('docs')]
}

describe('the documentation', () => {
  it('links only to files that exist (relative links of README.md, CHANGELOG.md and docs/)', () => {
    const broken: string[] = []
    for (const page of pages()) {
      const text = readFileSync(join(ROOT, page), 'utf8')
      for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target)) continue
        const file = target.split('#')[0] ?? ''
        if (!existsSync(join(ROOT, dirname(page), file))) broken.push(`${page}: ${target}`)
      }
    }
    expect(broken).toEqual([])
  })

  it('keeps the README a door: at most 300 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(300)
  })
})

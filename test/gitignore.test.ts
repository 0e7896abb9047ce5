import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'

/** Whether git would leave `path` out of a commit, by this repository's ignore rules. */
function ignored(path: string): boolean {
  try {
    execFileSync('git', ['check-ignore', '--quiet', '--no-index', path], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

describe('.gitignore', () => {
  it.each([
    ['.mock-keys.json', 'README.md: npm start -- --keys-file .mock-keys.json'],
    ['keys.json', 'docs/contract-suite.md: mock --keys-file keys.json'],
    ['.mock/state.json', 'docs/state.md: --state-file .mock/state.json'],
    ['examples/vite-app/.env.local', 'examples/vite-app/README.md: the demo keys in .env.local'],
  ])('leaves out %s, which holds keys (%s)', (path) => {
    expect(ignored(path)).toBe(true)
  })

  it('keeps the sources in', () => {
    expect(ignored('cli/main.ts')).toBe(false)
    expect(ignored('examples/vite-app/vite.config.ts')).toBe(false)
  })
})

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { MOCK_VERSION } from '../../mocks/engine/version.ts'

describe('the version a capsule names', () => {
  it("is package.json's version", () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
    expect(MOCK_VERSION).toBe(version)
  })
})

import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'

/** Every name TypeScript's standard libraries (JavaScript and the DOM) declare at the top level. */
function globalNames(): Set<string> {
  const lib = dirname(createRequire(import.meta.url).resolve('typescript/lib/lib.d.ts'))
  const names = new Set<string>()
  for (const file of readdirSync(lib).filter((name) =>
    /^lib\.(dom|es5|es20\d\d|esnext)\b.*\.d\.ts$/.test(name),
  ))
    for (const match of readFileSync(join(lib, file), 'utf8').matchAll(
      /^(?:declare )?(?:var|function|class|interface|type) (\w+)/gm,
    ))
      names.add(match[1] as string)
  return names
}

describe('the types of voice-api-kit/openapi', () => {
  const globals = globalNames()

  it.each(['v1', 'mock-control'])(
    '%s: no exported type takes the name of a global (Error stays the global one)',
    (name) => {
      const source = readFileSync(`openapi/generated/${name}.types.ts`, 'utf8')
      const exported = [...source.matchAll(/^export (?:type|interface) (\w+)/gm)].map((m) => m[1] as string)
      expect(globals.has('Error')).toBe(true)
      expect(exported).toContain(name === 'v1' ? 'Agent' : 'Account')
      expect(exported.filter((type) => globals.has(type))).toEqual([])
    },
  )

  it("keeps the contract's schema name: ErrorEnvelope is components['schemas']['Error']", () => {
    const source = readFileSync('openapi/generated/v1.types.ts', 'utf8')
    expect(source).toMatch(/^export type ErrorEnvelope = components\['schemas'\]\['Error'\];$/m)
    expect(source).toMatch(/^ {8}Error: \{$/m)
  })
})

import { execFile } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCommand, startMockServer } from './support/contract-command.ts'

// Issue 10: `voice-api-kit contract` runs without Vitest (an optional peer, for defineContractSuite only),
// from the sources and from the build.

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const IMPORT =
  /(?:^|[;\s])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

/** Every bare module a source file reaches through its static and literal dynamic imports, recursively. */
function reachedPackages(entry: string): Set<string> {
  const packages = new Set<string>()
  const seen = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    const text = readFileSync(file, 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '')
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? ''
      if (specifier.startsWith('.')) {
        const target = resolve(dirname(file), specifier)
        if (existsSync(target) && /\.[cm]?[jt]s$/.test(target)) visit(target)
      } else if (!specifier.startsWith('node:'))
        packages.add(
          specifier
            .split('/')
            .slice(0, specifier.startsWith('@') ? 2 : 1)
            .join('/'),
        )
    }
  }
  visit(resolve(ROOT, entry))
  return packages
}

describe('voice-api-kit/contracts without Vitest', () => {
  it('reaches no vitest module from the package entry or the command', () => {
    expect([...reachedPackages('contracts/index.ts')]).not.toContain('vitest')
    expect([...reachedPackages('cli/contract/contract-command.ts')]).not.toContain('vitest')
    expect([...reachedPackages('cli/main.ts')]).not.toContain('vitest')
  })

  it('keeps Vitest to the voice-api-kit/contracts/vitest entry (the scan finds it there)', () => {
    expect([...reachedPackages('contracts/vitest/index.ts')]).toContain('vitest')
  })
})

describe('voice-api-kit contract from the build, with vitest and tsx unresolvable', () => {
  const out = join(ROOT, '.tmp', `contract-build-${process.pid}`)
  let mock: Awaited<ReturnType<typeof startMockServer>>

  beforeAll(async () => {
    rmSync(out, { recursive: true, force: true })
    // The same build as `npm run build`, into a folder of its own (the project's dist/ stays untouched).
    await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', out],
      { cwd: ROOT },
    )
    mkdirSync(join(out, 'openapi'), { recursive: true })
    copyFileSync(join(ROOT, 'openapi/v1.yaml'), join(out, 'openapi/v1.yaml'))
    writeFileSync(
      join(out, 'block-hooks.mjs'),
      `export async function resolve(specifier, context, next) {
  if (/^(vitest|tsx)(\\/|$)/.test(specifier)) throw new Error('not installed in this test: ' + specifier)
  return next(specifier, context)
}\n`,
    )
    writeFileSync(
      join(out, 'block.mjs'),
      "import { register } from 'node:module'\nregister(new URL('./block-hooks.mjs', import.meta.url))\n",
    )
    mock = await startMockServer()
  }, 120_000)
  afterAll(async () => {
    await mock?.close()
    rmSync(out, { recursive: true, force: true })
  })

  it('runs the whole suite against the mock and exits 0', async () => {
    const run = await runCommand(
      [
        '--base-url',
        mock.baseUrl,
        '--provision',
        'mock',
        '--destructive',
        '--explore-sequences',
        '5',
        '--reporter',
        'summary',
      ],
      { entry: join(out, 'cli/main.js'), nodeArgs: ['--import', join(out, 'block.mjs')] },
    )
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/Total: \d{3} passed, 0 failed, 0 skipped, 0 not applicable/)
  }, 120_000)

  it('fails to load the Vitest entry there, so the block is real', async () => {
    const run = await runCommand([], {
      entry: join(out, 'contracts/vitest/index.js'),
      nodeArgs: ['--import', join(out, 'block.mjs')],
    })
    expect(run.code).not.toBe(0)
    expect(run.stderr).toContain('not installed in this test: vitest')
  }, 60_000)
})

/**
 * The `.d.ts` files of a build that no public entry's types reach: `tsc` writes one per module, but a user's
 * compiler only follows the imports of the `types` each export names. What nothing reaches is dead weight in
 * every install (about 180 files of 290: the CLI's, the server's, the engine's insides).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'

/** Relative module specifiers in a declaration file: `from '...'`, `import('...')`, `import '...'`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g

function declarationsUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return declarationsUnder(path)
    return entry.name.endsWith('.d.ts') ? [path] : []
  })
}

/** The declaration file an import of `specifier` from `file` resolves to (`./x.ts`, `./x.js`, `./x`). */
function resolveDeclaration(file: string, specifier: string): string | undefined {
  const base = normalize(join(dirname(file), specifier)).replace(/\.(?:d\.ts|ts|js|mjs)$/, '')
  return [`${base}.d.ts`, join(base, 'index.d.ts')].find((candidate) => existsSync(candidate))
}

/** Every `.d.ts` under `dist` that the declaration files `entries` (absolute paths) do not reach. */
export function unreachedDeclarations(dist: string, entries: readonly string[]): string[] {
  const reached = new Set<string>()
  const pending = entries.filter((entry) => existsSync(entry))
  while (pending.length > 0) {
    const file = pending.pop() as string
    if (reached.has(file)) continue
    reached.add(file)
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const target = resolveDeclaration(file, specifier as string)
      if (target && !reached.has(target)) pending.push(target)
    }
  }
  return declarationsUnder(dist).filter((file) => !reached.has(file))
}

/** The `types` files the exports of a package.json name, as absolute paths under `root`. */
export function exportedTypes(root: string, exports: Record<string, unknown>): string[] {
  return Object.values(exports).flatMap((target) => {
    const types =
      typeof target === 'object' && target !== null ? (target as { types?: string }).types : undefined
    return types ? [join(root, types)] : []
  })
}

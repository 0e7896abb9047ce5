import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The nearest folder above `from` that holds a package.json: the package root, in a checkout or in dist/. */
export function packageRoot(from: string): string {
  let folder = dirname(from)
  while (!existsSync(join(folder, 'package.json'))) {
    const parent = dirname(folder)
    if (parent === folder) throw new Error(`No package.json above ${from}`)
    folder = parent
  }
  return `${folder}/`
}

/** Absolute path of the repository (package) root, whether this runs from source or from `dist/`. */
export const REPO_ROOT = packageRoot(fileURLToPath(import.meta.url))

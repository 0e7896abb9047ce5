import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Where figures are written (gitignored). */
export const RESULTS_DIR = join(ROOT, 'bench-results')

/** Node arguments that run a TypeScript entry through tsx. */
export const TSX = ['--import', 'tsx']

/** The CLI through tsx (what the bin runs from a clone whose build is older than its sources). */
export const MOCK_TSX_ENTRY = [...TSX, join(ROOT, 'cli', 'main.ts')]

/** The built CLI (`tsc` to `dist/`), which `bin/voice-api-kit.js` prefers, when it exists. */
export const MOCK_DIST_MAIN = join(ROOT, 'dist', 'cli', 'main.js')

/** The built MSW entry of the package (`voice-api-kit/mocks/node`). */
export const MOCK_DIST_NODE = join(ROOT, 'dist', 'mocks', 'node.js')

/** Prism's CLI script (run with this Node, so that its pid is the server's). */
export const PRISM_CLI = join(ROOT, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js')

/** The v1 contract Prism serves. */
export const V1_CONTRACT = join(ROOT, 'openapi', 'v1.yaml')

/** A bench script run through tsx in its own process. */
export const benchScript = (name: string) => [...TSX, join(ROOT, 'scripts', 'bench', name)]

/** The newest modification time of the sources under `folder` (what the bin compares with `dist/.built`). */
function newestSource(folder: string): number {
  let newest = 0
  if (!existsSync(folder)) return newest
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue
    const path = join(folder, entry.name)
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path))
    else if (/\.(ts|js|css|html)$/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs)
  }
  return newest
}

/**
 * Whether `dist/` holds a build of the CLI at least as new as the sources (`npm run build` stamps
 * `dist/.built`, as `bin/voice-api-kit.js` checks): a stale build would measure other code.
 */
export function hasDistBuild(): boolean {
  const stamp = join(ROOT, 'dist', '.built')
  if (!existsSync(MOCK_DIST_MAIN) || !existsSync(stamp)) return false
  const builtAt = statSync(stamp).mtimeMs
  return ['cli', 'mocks', 'contracts', 'openapi'].every(
    (folder) => newestSource(join(ROOT, folder)) <= builtAt,
  )
}

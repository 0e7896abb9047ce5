import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Where figures are written (gitignored). */
export const RESULTS_DIR = join(ROOT, 'bench-results')

/** Node arguments that run a TypeScript entry through tsx. */
export const TSX = ['--import', 'tsx']

/** The CLI through tsx (what `npm start` runs). */
export const MOCK_TSX_ENTRY = [...TSX, join(ROOT, 'mocks', 'cli', 'main.ts')]

/** The built CLI (`tsc` to `dist/`), which `bin/voice-api-kit.js` prefers, when it exists. */
export const MOCK_DIST_MAIN = join(ROOT, 'dist', 'cli', 'main.js')

/** Prism's CLI script (run with this Node, so that its pid is the server's). */
export const PRISM_CLI = join(ROOT, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js')

/** The v1 contract Prism serves. */
export const V1_CONTRACT = join(ROOT, 'openapi', 'v1.yaml')

/** A bench script run through tsx in its own process. */
export const benchScript = (name: string) => [...TSX, join(ROOT, 'scripts', 'bench', name)]

/** Whether the lead's `tsc` build of the CLI exists. */
export const hasDistBuild = () => existsSync(MOCK_DIST_MAIN)

/**
 * Renders the HTML reference of the contract with Redocly (`build-docs`) into one self-contained
 * file: the Redoc bundle is inlined (no CDN), telemetry is off, and the result is checked for
 * assets that would not load offline. The mock serves it at `/_mock/docs`.
 *
 *   npm run docs [-- out.html]   writes dist/docs/v1.html by default
 */
import { execFile } from 'node:child_process'
import { mkdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, join, relative } from 'node:path'
import { promisify } from 'node:util'
import { findExternalAssets } from './lib/find-external-assets.ts'
import { isMain } from './lib/is-main.ts'
import { REPO_ROOT } from './lib/repo-root.ts'

/** Where the reference is written, relative to the repository root. */
export const DOCS_PATH = 'dist/docs/v1.html'

/** Absolute path of the rendered reference (what `/_mock/docs` serves). */
export const DOCS_FILE = join(REPO_ROOT, DOCS_PATH)

/** The contract the reference documents. */
const SOURCE = join(REPO_ROOT, 'openapi/v1.yaml')

const run = promisify(execFile)
const redoclyCli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js')

/**
 * Builds the HTML reference of `openapi/v1.yaml` and resolves to the written file's path.
 * Rejects when Redocly fails or when the page would load anything from the network.
 */
export async function buildDocs(outFile: string = DOCS_FILE, source: string = SOURCE): Promise<string> {
  await mkdir(dirname(outFile), { recursive: true })
  const args = [
    'build-docs',
    source,
    '--output',
    outFile,
    '--inlineBundle',
    '--openapi.disableTelemetry=true',
  ]
  await run(process.execPath, [redoclyCli, ...args, '--lint-config', 'off'], {
    cwd: REPO_ROOT,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    maxBuffer: 16 * 1024 * 1024,
  })
  const external = findExternalAssets(await readFile(outFile, 'utf8'))
  if (external.length > 0) throw new Error(`${outFile} loads external assets: ${external.join(', ')}`)
  return outFile
}

if (isMain(import.meta.url)) {
  const target = process.argv[2]
  const outFile = target ? (isAbsolute(target) ? target : join(process.cwd(), target)) : DOCS_FILE
  buildDocs(outFile).then(
    (file) => console.log(`wrote ${relative(process.cwd(), file)} (self-contained, no external assets)`),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error)
      process.exit(1)
    },
  )
}

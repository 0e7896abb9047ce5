/**
 * Builds what the package ships, into `dist/`:
 * - the compiled ESM JavaScript and `.d.ts` of every public entry (`tsc -p tsconfig.build.json`), without the
 *   `.d.ts` files that no exported type reaches;
 * - the dashboard's browser files, beside its compiled module (it serves them from its own folder);
 * - the contract's HTML reference (`dist/docs/v1.html.gz`, rendered by Redocly now, never at run time, and
 *   gzipped: 2.7 MB of inlined Redoc become 0.7 MB in the package);
 * - the JSON form of the contract documents (`dist/openapi/v1.json`, `dist/openapi/mock-control.json`).
 *
 *   npm run build
 */
import { execFile } from 'node:child_process'
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { extname, join } from 'node:path'
import { promisify } from 'node:util'
import { gzipSync } from 'node:zlib'
import { buildDocs } from './build-docs.ts'
import { CONTRACT_DOCUMENTS } from './lib/contract-documents.ts'
import { isMain } from './lib/is-main.ts'
import { loadYamlDocument } from './lib/load-yaml-document.ts'
import { REPO_ROOT } from './lib/repo-root.ts'
import { exportedTypes, unreachedDeclarations } from './lib/unreached-declarations.ts'

const run = promisify(execFile)
const DIST = join(REPO_ROOT, 'dist')
const DASHBOARD = 'mocks/server/dashboard'
/** The dashboard's files a browser loads (and the types of its public API), copied as they are. */
const DASHBOARD_ASSETS = new Set(['.js', '.css', '.html'])

async function compile(): Promise<void> {
  const tsc = join(REPO_ROOT, 'node_modules/typescript/bin/tsc')
  try {
    await run(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: REPO_ROOT, maxBuffer: 16 << 20 })
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
    throw new Error(`tsc -p tsconfig.build.json failed:\n${stdout}${stderr}`)
  }
}

async function copyDashboard(): Promise<number> {
  const target = join(DIST, DASHBOARD)
  await mkdir(target, { recursive: true })
  let copied = 0
  for (const name of await readdir(join(REPO_ROOT, DASHBOARD))) {
    if (!DASHBOARD_ASSETS.has(extname(name)) && name !== 'public-api.d.ts') continue
    await copyFile(join(REPO_ROOT, DASHBOARD, name), join(target, name))
    copied++
  }
  return copied
}

async function writeJsonDocuments(): Promise<string[]> {
  const written: string[] = []
  await mkdir(join(DIST, 'openapi'), { recursive: true })
  for (const contract of CONTRACT_DOCUMENTS) {
    const document = await loadYamlDocument(join(REPO_ROOT, contract.source))
    const file = `dist/openapi/${contract.name}.json`
    await writeFile(join(REPO_ROOT, file), `${JSON.stringify(document)}\n`)
    written.push(file)
  }
  return written
}

/** Builds `dist/` from scratch; resolves to a line per step. */
export async function build(): Promise<string[]> {
  await rm(DIST, { recursive: true, force: true })
  await compile()
  const lines = ['compiled cli, mocks, contracts and openapi to dist/ (ESM + .d.ts)']
  lines.push(`copied ${await copyDashboard()} dashboard files to dist/${DASHBOARD}`)
  const manifest = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8'))
  const unreached = unreachedDeclarations(DIST, exportedTypes(REPO_ROOT, manifest.exports))
  await Promise.all(unreached.map((file) => rm(file)))
  lines.push(`removed ${unreached.length} .d.ts files that no exported type reaches`)
  const docs = await buildDocs(join(DIST, 'docs/v1.html'))
  await writeFile(`${docs}.gz`, gzipSync(await readFile(docs), { level: 9 }))
  await rm(docs)
  lines.push('rendered dist/docs/v1.html.gz (self-contained, gzipped)')
  lines.push(`wrote ${(await writeJsonDocuments()).join(', ')}`)
  // The command compares this stamp with the sources to tell a stale build (see bin/voice-api-kit.js).
  await writeFile(join(DIST, '.built'), '')
  return lines
}

if (isMain(import.meta.url)) {
  const started = performance.now()
  build().then(
    (lines) => {
      for (const line of lines) console.log(line)
      console.log(`build done in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error)
      process.exit(1)
    },
  )
}

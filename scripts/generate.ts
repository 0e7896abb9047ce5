/**
 * Generates `openapi/generated/*` from the contract documents: openapi-typescript types
 * (`v1.types.ts`), the documents as importable data (`v1.document.ts`) and their interface.
 *
 *   npm run generate          write the files
 *   npm run check:generated   exit 1 when a committed file differs from what would be generated
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { CONTRACT_DOCUMENTS, type ContractDocument, GENERATED_DIR } from './lib/contract-documents.ts'
import { isMain } from './lib/is-main.ts'
import { loadYamlDocument } from './lib/load-yaml-document.ts'
import {
  DOCUMENT_INTERFACE_FILE,
  renderDocumentInterface,
  renderDocumentModule,
  renderTypes,
} from './lib/render-generated.ts'
import { REPO_ROOT } from './lib/repo-root.ts'

/** Where to read the sources and put the outputs. */
export interface GenerateOptions {
  /** Folder the document sources and `openapi/generated` are relative to; the repository by default. */
  root?: string
  /** The documents to generate from; all of the kit's by default. */
  documents?: readonly ContractDocument[]
}

/** Generates every output in memory: relative path (posix) -> content. */
export async function generateAll({
  root = REPO_ROOT,
  documents = CONTRACT_DOCUMENTS,
}: GenerateOptions = {}): Promise<Map<string, string>> {
  const files = new Map<string, string>()
  files.set(`${GENERATED_DIR}/${DOCUMENT_INTERFACE_FILE}`, await renderDocumentInterface())
  for (const contract of documents) {
    const document = await loadYamlDocument(join(root, contract.source))
    files.set(`${GENERATED_DIR}/${contract.name}.types.ts`, await renderTypes(document, contract))
    files.set(`${GENERATED_DIR}/${contract.name}.document.ts`, renderDocumentModule(document, contract))
  }
  return files
}

/** Reads a file, or undefined when it does not exist. */
async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8')
  } catch {
    return undefined
  }
}

/**
 * The generated files that are stale: missing, different from what would be generated, or
 * present in the generated folder although nothing generates them.
 */
export async function findStaleFiles(options: GenerateOptions = {}): Promise<string[]> {
  const root = options.root ?? REPO_ROOT
  const expected = await generateAll(options)
  const stale: string[] = []
  for (const [path, content] of expected) {
    if ((await readIfExists(join(root, path))) !== content) stale.push(path)
  }
  const present = await readdir(join(root, GENERATED_DIR)).catch(() => [])
  for (const name of present) {
    const path = `${GENERATED_DIR}/${name}`
    if (!expected.has(path)) stale.push(path)
  }
  return stale.sort()
}

/** Writes generated files under `root`. */
export async function writeGenerated(files: Map<string, string>, root: string = REPO_ROOT): Promise<void> {
  for (const [path, content] of files) {
    await mkdir(dirname(join(root, path)), { recursive: true })
    await writeFile(join(root, path), content)
  }
}

/** The command line: generate, or `--check` for freshness. */
async function main(args: string[]): Promise<number> {
  if (args.includes('--check')) {
    const stale = await findStaleFiles()
    if (stale.length === 0) {
      console.log(`generated files are up to date (${GENERATED_DIR})`)
      return 0
    }
    console.error(`stale generated files (run npm run generate and commit the result):`)
    for (const path of stale) console.error(`  ${path}`)
    return 1
  }
  const files = await generateAll()
  await writeGenerated(files)
  for (const path of files.keys()) console.log(`wrote ${path}`)
  return 0
}

if (isMain(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error)
      process.exit(1)
    },
  )
}

import { existsSync, readFileSync } from 'node:fs'
import { DOCS_FILE } from '../../scripts/build-docs.ts'
import type { EngineResponse } from '../engine/types.ts'

let docsHtml: string | undefined

function html(status: number, body: string): EngineResponse {
  return { status, headers: { 'content-type': 'text/html; charset=utf-8' }, body }
}

/** The contract's HTML reference (`npm run docs` builds it; built on first request when missing). */
export async function docsPage(): Promise<EngineResponse> {
  if (docsHtml === undefined) {
    if (!existsSync(DOCS_FILE)) {
      try {
        const { buildDocs } = await import('../../scripts/build-docs.ts')
        await buildDocs(DOCS_FILE)
      } catch (error) {
        return html(
          503,
          `<!doctype html><title>Docs not built</title><p>The reference is not built: run <code>npm run docs</code>. (${String(error)})</p>`,
        )
      }
    }
    docsHtml = readFileSync(DOCS_FILE, 'utf8')
  }
  return html(200, docsHtml)
}

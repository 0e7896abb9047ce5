import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import type { EngineResponse } from '../engine/types.ts'

/**
 * Where the build puts the contract's HTML reference, gzipped (`npm run build` renders it with Redocly): two
 * folders up from the compiled module in the package (`dist/docs/` seen from `dist/mocks/server/`), or in
 * `dist/` when the mock runs from the sources of a clone.
 */
const CANDIDATES = ['../../docs/v1.html.gz', '../../dist/docs/v1.html.gz'].map((relative) =>
  fileURLToPath(new URL(relative, import.meta.url)),
)

let docsHtml: string | undefined

function html(status: number, body: string): EngineResponse {
  return { status, headers: { 'content-type': 'text/html; charset=utf-8' }, body }
}

/** The contract's HTML reference, built at build time and read once; a page saying how to build it when absent. */
export function docsPage(): EngineResponse {
  if (docsHtml === undefined) {
    const found = CANDIDATES.find((path) => existsSync(path))
    if (!found)
      return html(
        503,
        '<!doctype html><title>Docs not built</title><p>The API reference is not built: run <code>npm run build</code>.</p>',
      )
    docsHtml = gunzipSync(readFileSync(found)).toString('utf8')
  }
  return html(200, docsHtml)
}

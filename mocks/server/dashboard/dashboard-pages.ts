import { readdirSync, readFileSync } from 'node:fs'
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { EngineResponse } from '../../engine/types.ts'

const DIRECTORY = fileURLToPath(new URL('./', import.meta.url))
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
}
/** Same origin only: no inline script, no framing (the page has revoke buttons), no referrer. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
}

function file(name: string): () => EngineResponse {
  const type = CONTENT_TYPES[extname(name)] ?? 'application/octet-stream'
  return () => ({
    status: 200,
    headers: { 'content-type': type, ...SECURITY_HEADERS },
    body: readFileSync(`${DIRECTORY}${name}`, 'utf8'),
  })
}

/** Whether a file of this folder is one of the dashboard's browser assets (not this module, compiled or not). */
function isAsset(name: string): boolean {
  const extension = extname(name)
  return (extension === '.js' || extension === '.css') && !name.startsWith('dashboard-pages.')
}

/**
 * The dashboard's pages for the control plane's `pages` map: `/dashboard` (the HTML) and
 * `/dashboard/<file>` for its scripts and styles. They are plain files in this module's folder (the build
 * copies them beside the compiled module), read on each request, so no bundling step.
 */
export function dashboardPages(): Record<string, () => EngineResponse> {
  const pages: Record<string, () => EngineResponse> = {
    '/dashboard': file('index.html'),
    '/dashboard/': file('index.html'),
  }
  for (const name of readdirSync(DIRECTORY)) if (isAsset(name)) pages[`/dashboard/${name}`] = file(name)
  return pages
}

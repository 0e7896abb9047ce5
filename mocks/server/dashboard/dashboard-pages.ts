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

/**
 * The dashboard's pages for the control plane's `pages` map: `/dashboard` (the HTML) and
 * `/dashboard/<file>` for its scripts and styles. Files are read on each request, so no build step.
 */
export function dashboardPages(): Record<string, () => EngineResponse> {
  const pages: Record<string, () => EngineResponse> = {
    '/dashboard': file('index.html'),
    '/dashboard/': file('index.html'),
  }
  for (const name of readdirSync(DIRECTORY)) {
    const extension = extname(name)
    if ((extension === '.js' || extension === '.css') && !name.endsWith('.d.ts'))
      pages[`/dashboard/${name}`] = file(name)
  }
  return pages
}

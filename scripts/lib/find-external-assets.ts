/** What makes a browser fetch something: script, link and frame tags, CSS imports and urls, ES imports. */
const ASSET_PATTERNS = [
  /<script\b[^>]*\bsrc\s*=\s*["']?([^"'\s>]+)/gi,
  /<link\b[^>]*\bhref\s*=\s*["']?([^"'\s>]+)/gi,
  /<iframe\b[^>]*\bsrc\s*=\s*["']?([^"'\s>]+)/gi,
  /@import\s+(?:url\()?\s*["']?([^"')\s;]+)/gi,
  /url\(\s*["']?(https?:[^"')\s]+)/gi,
  /\bfrom\s*["'](https?:\/\/[^"']+)/gi,
  /\bimport\s*\(\s*["'](https?:\/\/[^"']+)/gi,
]

/**
 * The absolute http(s) URLs an HTML page loads as assets (scripts, stylesheets, fonts, frames):
 * what would not load offline. Plain links (`<a href>`) are not assets and are ignored.
 */
export function findExternalAssets(html: string): string[] {
  const found = new Set<string>()
  for (const pattern of ASSET_PATTERNS) {
    for (const match of html.matchAll(pattern)) {
      const url = match[1]
      if (url && /^(https?:)?\/\//i.test(url)) found.add(url)
    }
  }
  return [...found].sort()
}

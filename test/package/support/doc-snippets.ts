import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** A fenced code block of a documentation page, and where it is. */
export interface DocSnippet {
  /** `README.md:84`: the page and the line of the opening fence. */
  where: string
  code: string
}

/** The code blocks of `page` (relative to the repository) in `language` that contain every one of `needles`. */
export function docSnippets(page: string, language: string, needles: readonly string[]): DocSnippet[] {
  const lines = readFileSync(`${ROOT}${page}`, 'utf8').split('\n')
  const found: DocSnippet[] = []
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== `\`\`\`${language}`) continue
    const end = lines.findIndex((line, j) => j > i && line.trim() === '```')
    if (end < 0) break
    const code = lines.slice(i + 1, end).join('\n')
    if (needles.every((needle) => code.includes(needle))) found.push({ where: `${page}:${i + 1}`, code })
    i = end
  }
  return found
}

/** The one code block of `page` that contains every one of `needles`; throws when there is none or several. */
export function docSnippet(page: string, language: string, needles: readonly string[]): DocSnippet {
  const found = docSnippets(page, language, needles)
  if (found.length !== 1)
    throw new Error(
      `${page}: expected one \`\`\`${language} block with ${needles.join(', ')}, found ${found.length}`,
    )
  return found[0] as DocSnippet
}

/** The text of a documentation page (relative to the repository). */
export function docPage(page: string): string {
  return readFileSync(`${ROOT}${page}`, 'utf8')
}

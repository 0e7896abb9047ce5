import { readFileSync, statSync } from 'node:fs'
import { MAX_CAPSULE_BYTES } from '../../mocks/engine/request-body.ts'

const MiB = 1024 * 1024

/**
 * The text of `--from-capsule <path>`, read whole; a file that is missing, not a file, unreadable or over the
 * bound a capsule may hold is refused (one line) before it is read. The engine checks what it holds.
 */
export function readCapsuleFile(path: string): string {
  const refuse = (why: string) => new Error(`--from-capsule ${path}: ${why}`)
  let size: number
  try {
    const stat = statSync(path)
    if (!stat.isFile()) throw refuse('that is not a file.')
    size = stat.size
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') throw refuse('no such file.')
    throw error instanceof Error && error.message.startsWith('--from-capsule') ? error : refuse(`${code}.`)
  }
  if (size > MAX_CAPSULE_BYTES)
    throw refuse(
      `the file is ${(size / MiB).toFixed(1)} MiB; a capsule holds at most ${MAX_CAPSULE_BYTES / MiB} MiB.`,
    )
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw refuse(`cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)}).`)
  }
}

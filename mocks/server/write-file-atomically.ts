import { randomBytes } from 'node:crypto'
import { closeSync, constants, openSync, readdirSync, unlinkSync } from 'node:fs'
import { open, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { processGone } from './process-gone.ts'
import { writeWhole } from './write-whole.ts'

/**
 * Create the temporary, write only, and fail if anything (a file, a link, dangling or not) is already
 * there; never follow a link where the platform can say so (`O_NOFOLLOW` is absent on Windows).
 */
const EXCLUSIVE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0)

/** `<file>.<pid>.<32 hex>.tmp`, and `<file>.<pid>.tmp` from versions before the random part. */
const TEMPORARY = /^(\d+)(?:\.[0-9a-f]{32})?\.tmp$/

export interface WriteOptions {
  /** Permission bits of the file. Default 0o600 (owner only: the files hold state and keys). */
  mode?: number
}

/** `<file>.<pid>.<32 random hex>.tmp`: beside the file, unpredictable. */
function temporaryName(path: string): string {
  return `${path}.${process.pid}.${randomBytes(16).toString('hex')}.tmp`
}

/**
 * Throws (ENOENT, EACCES, EROFS...) unless `writeFileAtomically(path)` could create its temporary:
 * creates one exclusively and removes it at once.
 */
export function checkWritable(path: string): void {
  const temporary = temporaryName(path)
  closeSync(openSync(temporary, EXCLUSIVE, 0o600))
  unlinkSync(temporary)
}

async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r')
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  } catch {
    // Some file systems cannot fsync a folder; the rename is still atomic.
  }
}

/**
 * Writes a file (whole, or from an async iterable of pieces) so that it is always either the old content
 * or the new one, durably, and safely in
 * a folder others can write to: the data goes to a temporary beside it that is created exclusively
 * (`O_EXCL`, never through a link), named unpredictably (pid and 128 random bits) and owner-only
 * (mode 600); it is fsynced, renamed over the file (a link at `path` is replaced, not followed), and
 * the folder is fsynced. On any failure the temporary is removed and the old file is left as it was.
 */
export async function writeFileAtomically(
  path: string,
  data: string | Uint8Array | AsyncIterable<string>,
  { mode = 0o600 }: WriteOptions = {},
): Promise<void> {
  const temporary = temporaryName(path)
  const file = await open(temporary, EXCLUSIVE, mode)
  try {
    try {
      // The umask may have taken bits away at creation; the mode asked for is the mode given.
      await file.chmod(mode)
      if (typeof data === 'string' || data instanceof Uint8Array) await file.writeFile(data)
      // Written piece by piece (a large state): the event loop keeps serving between the pieces.
      else for await (const chunk of data) await writeWhole(file, Buffer.from(chunk))
      await file.sync()
    } finally {
      await file.close()
    }
    await rename(temporary, path)
  } catch (error) {
    await unlink(temporary).catch(() => {})
    throw error
  }
  await syncFolder(dirname(path))
}

/**
 * Removes the temporaries that processes killed in the middle of `writeFileAtomically(path)` left
 * beside `path` (a link is removed, never followed); those of running processes are left alone (a zombie is
 * not running).
 */
export function removeStaleTemporaries(path: string): void {
  const prefix = `${basename(path)}.`
  let names: string[]
  try {
    names = readdirSync(dirname(path))
  } catch {
    return
  }
  for (const name of names) {
    const pid = name.startsWith(prefix) ? TEMPORARY.exec(name.slice(prefix.length))?.[1] : undefined
    if (pid === undefined || Number(pid) === process.pid || !processGone(Number(pid))) continue
    try {
      unlinkSync(join(dirname(path), name))
    } catch {
      // Already gone.
    }
  }
}

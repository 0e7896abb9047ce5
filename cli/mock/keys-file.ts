import { closeSync, constants, existsSync, fchmodSync, lstatSync, openSync, readFileSync } from 'node:fs'
import type { MockPlatform } from '../../mocks/platform.ts'
import { checkWritable, writeFileAtomically } from '../../mocks/server/write-file-atomically.ts'

/**
 * Makes sure the keys file can be written before anything starts (its folder exists and takes a new
 * file: it is replaced whole, never written in place), and narrows an existing file to mode 600 at once
 * (it will hold key values); a link at the path is left alone (it will be replaced, not followed).
 * One-line errors.
 */
export function prepareKeysFile(path: string): void {
  try {
    if (lstatSync(path, { throwIfNoEntry: false })?.isDirectory())
      throw Object.assign(new Error('a folder'), { code: 'EISDIR' })
    checkWritable(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why =
      code === 'ENOENT' || code === 'ENOTDIR'
        ? 'its folder does not exist'
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? 'it is not writable here'
          : code === 'EISDIR'
            ? 'it is a folder'
            : (error as Error).message
    throw new Error(`Cannot write the keys file ${path}: ${why}.`)
  }
  if (!lstatSync(path, { throwIfNoEntry: false })?.isFile()) return
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
  try {
    fchmodSync(fd, 0o600)
  } finally {
    closeSync(fd)
  }
}

/** Key values from an earlier keys file, kept only if they still authenticate against the stored hashes. */
export function previousKeys(platform: MockPlatform, keysFile: string | undefined) {
  if (!keysFile || !existsSync(keysFile)) return {}
  try {
    const saved = JSON.parse(readFileSync(keysFile, 'utf8')) as {
      secret_key?: string
      publishable_key?: string
    }
    const check = (value: string | undefined, id: string) =>
      value && platform.keys.find(value)?.record.id === id ? value : undefined
    return {
      secretKey: check(saved.secret_key, platform.demo.secretKeyId),
      publishableKey: check(saved.publishable_key, platform.demo.publishableKeyId),
    }
  } catch {
    return {}
  }
}

/** Writes the keys file: owner-only, never through a link (it holds the demo keys' values). */
export async function writeKeysFile(path: string, keys: Record<string, string | null>): Promise<void> {
  try {
    await writeFileAtomically(path, `${JSON.stringify(keys, null, 2)}\n`)
  } catch (error) {
    throw new Error(`Cannot write the keys file ${path}: ${(error as Error).message}`)
  }
}

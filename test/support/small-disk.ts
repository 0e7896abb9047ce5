import { execFileSync } from 'node:child_process'
import { appendFileSync, closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'

/**
 * A small real file system (a tmpfs) mounted at `where`, so that a test can fill the disk. Mounting needs root
 * (CI runs as root); returns undefined where it is not allowed, and the test skips with a message.
 */
export function mountSmallDisk(where: string, size = '2m'): { unmount(): void } | undefined {
  mkdirSync(where, { recursive: true })
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', where], { stdio: 'ignore' })
  } catch {
    return undefined
  }
  let mounted = true
  return {
    unmount() {
      if (!mounted) return
      mounted = false
      execFileSync('umount', ['-l', where], { stdio: 'ignore' })
    },
  }
}

export const NO_MOUNT = 'mounting a tmpfs is not allowed here (it needs root): the full-disk test is skipped'

/**
 * Fills what is left of the disk under `folder` with a file, to the last byte; `free()` removes it. A file
 * written afterwards gets ENOSPC, and one already open is written short at the end of its last block.
 */
export function fillDisk(folder: string): { free(): void } {
  const filler = join(folder, 'filler')
  const fd = openSync(filler, 'w')
  try {
    const block = Buffer.alloc(64 * 1024, 1)
    for (;;) writeSync(fd, block)
  } catch {
    // ENOSPC: full to the block.
  } finally {
    closeSync(fd)
  }
  try {
    for (;;) appendFileSync(filler, 'x')
  } catch {
    // Not one byte more.
  }
  return { free: () => rmSync(filler, { force: true }) }
}

import type { FileHandle } from 'node:fs/promises'

/**
 * Writes every byte of `bytes` at the file's position (or its end, opened to append). One write may take only
 * part of them (a filling disk, a signal): the rest is written by the next; a write that takes nothing at all
 * means the disk is full (ENOSPC). Rejects with the error of the write that failed.
 */
export async function writeWhole(file: Pick<FileHandle, 'write'>, bytes: Uint8Array): Promise<void> {
  let offset = 0
  while (offset < bytes.length) {
    const { bytesWritten } = await file.write(bytes, offset, bytes.length - offset)
    if (bytesWritten <= 0)
      throw Object.assign(new Error('ENOSPC: the file took no more bytes'), { code: 'ENOSPC' })
    offset += bytesWritten
  }
}

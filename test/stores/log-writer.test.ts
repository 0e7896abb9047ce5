import { constants, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { encodeLine } from '../../mocks/stores/file/line-codec.ts'
import { type LogFile, type LogWriter, openLogWriter } from '../../mocks/stores/file/log-writer.ts'

/**
 * A real file whose writes behave like those of a filling disk: each takes at most `maxPerWrite` bytes, and
 * no more than `room` bytes in all (a write with no room left fails with ENOSPC, like write(2)). `failTruncates`
 * truncations fail before one succeeds.
 */
interface Disk {
  room: number
  maxPerWrite: number
  failTruncates: number
  writes: number
}

function diskFile(disk: Disk) {
  return async (path: string): Promise<LogFile> => {
    const real: FileHandle = await open(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND,
      0o600,
    )
    const enospc = () =>
      Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
    return {
      async write(data: string | Uint8Array, offset?: unknown, length?: unknown) {
        disk.writes++
        const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data)
        const from = typeof data === 'string' ? 0 : Number(offset ?? 0)
        const wanted = typeof data === 'string' ? bytes.length : Number(length ?? bytes.length - from)
        const take = Math.min(wanted, disk.maxPerWrite, disk.room)
        if (take <= 0) throw enospc()
        const written = await real.write(bytes, from, take)
        disk.room -= written.bytesWritten
        return written
      },
      datasync: () => real.datasync(),
      async truncate(length?: number) {
        if (disk.failTruncates > 0) {
          disk.failTruncates--
          throw Object.assign(new Error('EIO: i/o error, ftruncate'), { code: 'EIO' })
        }
        await real.truncate(length)
      },
      close: () => real.close(),
    } as LogFile
  }
}

let folder: string
let path: string
let writer: LogWriter | undefined
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'vak-log-writer-'))
  path = join(folder, 'state.json.log')
})
afterEach(async () => {
  await writer?.close().catch(() => {})
  writer = undefined
  rmSync(folder, { recursive: true, force: true })
})

const record = (seq: number, padding = 0) =>
  encodeLine({ seq, changes: [['agents', `a/agt_${seq}`, { name: 'x'.repeat(padding) }]] })

async function append(line: string): Promise<'durable' | 'refused'> {
  const undone: string[] = []
  const outcome = await (writer as LogWriter)
    .append(line, true, () => undone.push(line))
    .then(
      () => 'durable' as const,
      () => 'refused' as const,
    )
  if (outcome === 'refused') expect(undone).toEqual([line])
  return outcome
}

describe('the log writer on a file that writes short', () => {
  it('finishes a record written a few bytes at a time before saying it is durable', async () => {
    const disk: Disk = { room: Number.POSITIVE_INFINITY, maxPerWrite: 7, failTruncates: 0, writes: 0 }
    writer = await openLogWriter(path, { size: 0, openFile: diskFile(disk) })
    const lines = [record(1, 40), record(2, 300), record(3)]
    for (const line of lines) expect(await append(line)).toBe('durable')
    expect(readFileSync(path, 'utf8')).toBe(lines.join(''))
    expect(writer.size()).toBe(Buffer.byteLength(lines.join('')))
    expect(disk.writes).toBeGreaterThan(lines.length)
  })

  it.each([
    ['the disk fills in the middle of a record', 0],
    ['the disk fills, and cutting the file back fails once', 1],
  ])(
    'refuses a record cut short (%s), keeps no byte of it, and appends the next one after the last whole record',
    async (_case, failTruncates) => {
      const disk: Disk = { room: Number.POSITIVE_INFINITY, maxPerWrite: 64, failTruncates: 0, writes: 0 }
      writer = await openLogWriter(path, { size: 0, openFile: diskFile(disk) })
      const first = record(1, 20)
      expect(await append(first)).toBe('durable')

      // Room for half of the next record: it is written in part, then the disk is full.
      const cut = record(2, 200)
      disk.room = Math.floor(Buffer.byteLength(cut) / 2)
      disk.failTruncates = failTruncates
      expect(await append(cut)).toBe('refused')
      expect(writer.size()).toBe(Buffer.byteLength(first))
      if (failTruncates === 0) expect(readFileSync(path, 'utf8')).toBe(first)

      // Room again: the next record follows the last whole one, never the piece of the refused one.
      disk.room = Number.POSITIVE_INFINITY
      const next = record(3, 20)
      expect(await append(next)).toBe('durable')
      expect(readFileSync(path, 'utf8')).toBe(first + next)
      expect(writer.size()).toBe(Buffer.byteLength(first + next))
    },
  )

  it('refuses a record while the file cannot be cut back to its last whole record', async () => {
    const disk: Disk = { room: Number.POSITIVE_INFINITY, maxPerWrite: 64, failTruncates: 0, writes: 0 }
    writer = await openLogWriter(path, { size: 0, openFile: diskFile(disk) })
    const first = record(1)
    expect(await append(first)).toBe('durable')
    disk.room = 10
    disk.failTruncates = 2
    expect(await append(record(2, 100))).toBe('refused')
    disk.room = Number.POSITIVE_INFINITY
    // The piece of record 2 is still there (the cut failed again): nothing may be appended after it.
    expect(await append(record(3))).toBe('refused')
    const next = record(4)
    expect(await append(next)).toBe('durable')
    expect(readFileSync(path, 'utf8')).toBe(first + next)
  })
})

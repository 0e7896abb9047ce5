import { spawn } from 'node:child_process'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  watch,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createState } from '../../mocks/engine/state/state.ts'
import { removeStaleTemporaries, writeFileAtomically } from '../../mocks/server/write-file-atomically.ts'
import { createFileStore } from '../../mocks/stores/file/file-store.ts'
import { fillDisk, mountSmallDisk, NO_MOUNT } from '../support/small-disk.ts'

let folder: string
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'vak-atomic-'))
})
afterEach(() => rmSync(folder, { recursive: true, force: true }))

/** A new file store at `path` writes its first snapshot there. */
async function writeFirstSnapshot(path: string): Promise<void> {
  const store = createFileStore(path)
  await store.load()
  await store.attach(createState(), { fresh: true })
  await store.close()
}

/** Names a temporary could have had in earlier versions of the mock: `<file>.<pid>.tmp`. */
const predictableNames = (path: string) => [`${path}.${process.pid}.tmp`, `${path}.tmp`]

describe('a file store writing its snapshot', () => {
  it('never writes through a link planted at a predictable temporary name', async () => {
    const path = join(folder, 'state.json')
    const victim = join(folder, 'victim.txt')
    writeFileSync(victim, 'precious\n')
    for (const name of predictableNames(path)) symlinkSync(victim, name)
    await writeFirstSnapshot(path)
    expect(readFileSync(victim, 'utf8')).toBe('precious\n')
    expect(readFileSync(path, 'utf8')).toContain('"format":"voice-api-kit/state"')
    expect(lstatSync(path).isSymbolicLink()).toBe(false)
  })

  it('never creates the target of a dangling link planted at a predictable temporary name', async () => {
    const path = join(folder, 'state.json')
    const target = join(folder, 'created-through-link.txt')
    for (const name of predictableNames(path)) symlinkSync(target, name)
    await writeFirstSnapshot(path)
    expect(existsSync(target)).toBe(false)
  })
})

describe('writeFileAtomically', () => {
  it('writes the file whole with mode 600, even over a file that was readable by all', async () => {
    const path = join(folder, 'keys.json')
    writeFileSync(path, 'old', { mode: 0o644 })
    await writeFileAtomically(path, '{"secret":1}\n')
    expect(readFileSync(path, 'utf8')).toBe('{"secret":1}\n')
    expect(statSync(path).mode & 0o777).toBe(0o600)
  })

  it('replaces a link at the path itself instead of writing to its target', async () => {
    const path = join(folder, 'keys.json')
    const victim = join(folder, 'victim.txt')
    writeFileSync(victim, 'precious\n')
    symlinkSync(victim, path)
    await writeFileAtomically(path, 'new\n')
    expect(readFileSync(victim, 'utf8')).toBe('precious\n')
    expect(lstatSync(path).isSymbolicLink()).toBe(false)
    expect(readFileSync(path, 'utf8')).toBe('new\n')
  })

  it('names each temporary unpredictably (pid and 128 random bits), beside the file', async () => {
    const path = join(folder, 'state.json')
    const seen = new Set<string>()
    const watcher = watch(folder, (_event, name) => {
      if (name?.endsWith('.tmp')) seen.add(name)
    })
    try {
      for (let i = 0; i < 5; i++) await writeFileAtomically(path, `write ${i}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    } finally {
      watcher.close()
    }
    expect(seen.size).toBe(5)
    for (const name of seen)
      expect(name).toMatch(new RegExp(`^state\\.json\\.${process.pid}\\.[0-9a-f]{32}\\.tmp$`))
  })

  it('removes its temporary and keeps the old file when the write fails', async () => {
    const path = join(folder, 'state.json')
    mkdirSync(path)
    writeFileSync(join(path, 'inside'), 'x')
    await expect(writeFileAtomically(path, 'new')).rejects.toThrow()
    expect(readdirSync(folder)).toEqual(['state.json'])
    expect(readdirSync(path)).toEqual(['inside'])
  })

  it('refuses a file written in pieces when the disk fills in its last piece, and keeps the old file (a 2 MiB tmpfs)', async (ctx) => {
    const where = join(folder, 'disk')
    const disk = mountSmallDisk(where)
    if (!disk) {
      console.log(NO_MOUNT)
      return ctx.skip(NO_MOUNT)
    }
    try {
      const path = join(where, 'state.json')
      writeFileSync(path, 'old')
      const full = fillDisk(where)
      // Two blocks free: the last piece is written in part, then the disk is full.
      const filler = join(where, 'filler')
      truncateSync(filler, statSync(filler).size - (statSync(filler).size % 4096) - 8192)
      async function* pieces() {
        yield 'a'.repeat(1000)
        yield 'b'.repeat(9000)
      }
      await expect(writeFileAtomically(path, pieces())).rejects.toThrow(/ENOSPC/)
      expect(readFileSync(path, 'utf8')).toBe('old')
      full.free()
      await writeFileAtomically(path, pieces())
      expect(statSync(path).size).toBe(10_000)
    } finally {
      disk.unmount()
    }
  })
})

describe('removeStaleTemporaries', () => {
  it('removes the temporary of a process that died and was never reaped (a zombie)', async () => {
    // `sleep 0` ends at once; its parent became `sleep 5`, which never reaps it.
    const parent = spawn('/bin/sh', ['-c', 'sleep 0 & echo $!; exec sleep 5'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    try {
      const pid = Number(
        await new Promise<string>((resolve) => parent.stdout.once('data', (d) => resolve(String(d)))),
      )
      for (let i = 0; i < 100 && !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8')); i++)
        await new Promise((resolve) => setTimeout(resolve, 10))
      expect(readFileSync(`/proc/${pid}/stat`, 'utf8')).toMatch(/\) Z /)
      const path = join(folder, 'state.json')
      const temporary = `${path}.${pid}.${'0'.repeat(32)}.tmp`
      writeFileSync(temporary, 'half')
      removeStaleTemporaries(path)
      expect(existsSync(temporary)).toBe(false)
    } finally {
      parent.kill('SIGKILL')
    }
  })

  it('removes the temporaries of dead processes, keeps live ones, and removes a planted link without following it', () => {
    const path = join(folder, 'state.json')
    const victim = join(folder, 'victim.txt')
    writeFileSync(victim, 'precious\n')
    const dead = 2 ** 22 + 17 // above Linux's pid_max default: no such process
    const stale = [`state.json.${dead}.tmp`, `state.json.${dead}.0123456789abcdef0123456789abcdef.tmp`]
    for (const name of stale) writeFileSync(join(folder, name), 'x')
    symlinkSync(victim, join(folder, `state.json.${dead}.fedcba9876543210fedcba9876543210.tmp`))
    const live = `state.json.${process.pid}.00000000000000000000000000000000.tmp`
    writeFileSync(join(folder, live), 'x')
    writeFileSync(join(folder, 'state.json.other'), 'x')
    removeStaleTemporaries(path)
    expect(readdirSync(folder).sort()).toEqual([live, 'state.json.other', 'victim.txt'].sort())
    expect(readFileSync(victim, 'utf8')).toBe('precious\n')
  })
})

import { execFileSync, spawn } from 'node:child_process'
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { EngineRequest } from '../../mocks/engine/types.ts'
import { createMockPlatform, type MockPlatform } from '../../mocks/platform.ts'
import { createFileStore } from '../../mocks/stores/file/file-store.ts'
import { encodeLine } from '../../mocks/stores/file/line-codec.ts'
import { StoreLocked } from '../../mocks/stores/file/owner-lock.ts'
import { readStateFiles, StateFileError } from '../../mocks/stores/file/state-files.ts'
import { httpJson, provisionAccount } from '../reliability/support/http-json.ts'
import { spawnMock } from '../reliability/support/spawn-mock.ts'
import { fillDisk, mountSmallDisk, NO_MOUNT } from '../support/small-disk.ts'

let folder: string
let path: string
const open: MockPlatform[] = []

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'vak-file-store-'))
  path = join(folder, 'state.json')
})
afterEach(async () => {
  for (const platform of open.splice(0)) await platform.close().catch(() => {})
  rmSync(folder, { recursive: true, force: true })
})

async function start(
  options: Parameters<typeof createFileStore>[1] = {},
  seedSize?: { agents?: number; callLogs?: number; teamMembers?: number },
): Promise<MockPlatform> {
  const platform = await createMockPlatform({ seed: 5, seedSize, store: createFileStore(path, options) })
  open.push(platform)
  return platform
}

async function stop(platform: MockPlatform): Promise<void> {
  open.splice(open.indexOf(platform), 1)
  await platform.close()
}

function call(platform: MockPlatform, method: string, url: string, body?: unknown, key?: string) {
  const request: EngineRequest = {
    method,
    url,
    headers: {
      'content-type': 'application/json',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: body === undefined ? null : JSON.stringify(body),
  }
  return platform.handle(request)
}

const agentBody = (name: string) => ({
  name,
  voice: { provider: 'elevenlabs', voice_id: 'rachel' },
  llm: { provider: 'openai', model: 'gpt-4o' },
})

describe('the file store', () => {
  it('restarts with every change: data, keys, the clock, the owner created with an account', async () => {
    const first = await start()
    const key = first.demo.secretKey ?? ''
    const created = await call(first, 'POST', '/v1/agents', agentBody('kept'), key)
    expect(created.status).toBe(201)
    const account = (await call(first, 'POST', '/_mock/accounts', { plan: 'free' })).body as { id: string }
    const keyOf = (await call(first, 'POST', `/_mock/accounts/${account.id}/keys`, {
      type: 'secret',
      name: 'k',
    })) as { body: { value: string } }
    const owner = (await call(first, 'GET', '/v1/team-members', undefined, keyOf.body.value)).body as {
      data: { id: string }[]
    }
    await call(first, 'POST', '/_mock/clock/advance', { seconds: 90 })
    await stop(first)

    const second = await start()
    const agentId = (created.body as { id: string }).id
    expect((await call(second, 'GET', `/v1/agents/${agentId}`, undefined, key)).status).toBe(200)
    const again = (await call(second, 'GET', '/v1/team-members', undefined, keyOf.body.value)).body as {
      data: { id: string }[]
    }
    expect(again.data.map((member) => member.id)).toEqual(owner.data.map((member) => member.id))
    expect(second.clock.offsetSeconds()).toBe(90)
  })

  it('writes in proportion to the change: one agent adds a log record, not the whole state', async () => {
    const platform = await start()
    const snapshotBytes = statSync(path).size
    const before = statSync(`${path}.log`).size
    await call(platform, 'POST', '/v1/agents', agentBody('one more'), platform.demo.secretKey)
    const grown = statSync(`${path}.log`).size - before
    expect(snapshotBytes).toBeGreaterThan(100_000)
    expect(grown).toBeGreaterThan(0)
    expect(grown).toBeLessThan(4_000)
    expect(statSync(path).size).toBe(snapshotBytes)
  })

  it('keeps rate-limit windows, last-used times and the journal, written within a second', async () => {
    const first = await start({ softDelayMs: 20 })
    for (let i = 0; i < 3; i++) await call(first, 'GET', '/v1/user', undefined, first.demo.secretKey)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const accountId = first.demo.account.id
    const used = async (platform: MockPlatform) =>
      (
        (await call(platform, 'GET', `/_mock/accounts/${accountId}/rate-limit`)).body as {
          windows: { policy: string; used: number }[]
        }
      ).windows.map(({ policy, used }) => ({ policy, used }))
    const usage = await used(first)
    expect(usage.map((window) => window.used)).toEqual([3, 3])
    await stop(first)
    const second = await start()
    expect(await used(second)).toEqual(usage)
    const journal = (await call(second, 'GET', '/_mock/journal?limit=1000')).body as { data: unknown[] }
    expect(journal.data.length).toBeGreaterThanOrEqual(3)
    expect(second.keys.get(second.demo.secretKeyId)?.last_used_at).not.toBeNull()
  })

  it('refuses a second owner of the same store, naming the process that holds it', async () => {
    await start()
    const second = createFileStore(path)
    await expect(second.load()).rejects.toThrow(StoreLocked)
    await expect(createFileStore(path).load()).rejects.toThrow(
      `state file ${path} is in use by another mock in this process (${process.pid})`,
    )
  })

  it('takes over the lock of a process that is gone', async () => {
    writeFileSync(
      `${path}.lock`,
      `${JSON.stringify({ pid: 2 ** 22 + 7, host: hostName(), since: 'then' })}\n`,
    )
    const platform = await start()
    expect(platform.store.description).toBe(`state file ${path}`)
  })

  /** A live process that is no mock (`sleep`), and its start time as /proc gives it (ticks since boot). */
  async function liveStranger(): Promise<{ pid: number; startTicks: number; stop(): void }> {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' })
    await new Promise((resolve) => child.once('spawn', resolve))
    const pid = child.pid ?? 0
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const startTicks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19])
    return { pid, startTicks, stop: () => child.kill('SIGKILL') }
  }
  const bootId = () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
  const lockNaming = (owner: Record<string, unknown>) =>
    writeFileSync(`${path}.lock`, `${JSON.stringify({ host: hostName(), since: 'then', ...owner })}\n`)

  it.each([
    [
      'another start time (its process id was reused)',
      (s: { startTicks: number }) => ({ startTicks: s.startTicks + 1, bootId: bootId() }),
    ],
    [
      'another boot of the machine',
      (s: { startTicks: number }) => ({ startTicks: s.startTicks, bootId: 'a-boot-before' }),
    ],
  ])('takes over a lock naming a live process with %s', async (_case, identity) => {
    const stranger = await liveStranger()
    try {
      lockNaming({ pid: stranger.pid, ...identity(stranger) })
      const platform = await start()
      expect(platform.store.description).toBe(`state file ${path}`)
      expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8')).pid).toBe(process.pid)
    } finally {
      stranger.stop()
    }
  })

  it.each([
    [
      'its process id, start time and boot',
      (s: { startTicks: number }) => ({ startTicks: s.startTicks, bootId: bootId() }),
    ],
    ['only its process id (a lock of an earlier version)', () => ({})],
  ])('refuses a lock naming a live process by %s', async (_case, identity) => {
    const stranger = await liveStranger()
    try {
      lockNaming({ pid: stranger.pid, ...identity(stranger) })
      await expect(createFileStore(path).load()).rejects.toThrow(
        `state file ${path} is in use by another mock (process ${stranger.pid}, since then)`,
      )
    } finally {
      stranger.stop()
    }
  })

  it('drops a record cut short at the end of the log, and reports it', async () => {
    const first = await start()
    await call(first, 'POST', '/v1/agents', agentBody('whole'), first.demo.secretKey)
    await stop(first)
    const torn = '8c7a1f0b {"seq":99,"changes":[["agents","x/agt_torn",{"na'
    appendFileSync(`${path}.log`, torn)
    const store = createFileStore(path)
    const platform = await createMockPlatform({ seed: 5, store })
    open.push(platform)
    expect(store.loaded()?.tornTail).toMatchObject({ file: `${path}.log`, bytes: Buffer.byteLength(torn) })
    const listed = (await call(platform, 'GET', '/v1/agents?limit=100', undefined, first.demo.secretKey)) as {
      body: { data: { name: string }[] }
    }
    expect(listed.body.data.map((agent) => agent.name)).toContain('whole')
    // The next write goes after the last whole record, and a restart reads it.
    await call(platform, 'POST', '/v1/agents', agentBody('after the tear'), first.demo.secretKey)
    await stop(platform)
    expect(readStateFiles(path)?.tornTail).toBeUndefined()
  })

  it.each([
    ['a changed byte', (line: string) => line.replace('"seq"', '"sEq"')],
    ['a line without its checksum', (line: string) => line.slice(9)],
  ])('names the file and line of a damaged record before the end of the log (%s)', async (_name, damage) => {
    const first = await start()
    for (const name of ['a', 'b'])
      await call(first, 'POST', '/v1/agents', agentBody(name), first.demo.secretKey)
    await stop(first)
    const lines = readFileSync(`${path}.log`, 'utf8').split('\n')
    lines[0] = damage(lines[0] ?? '')
    writeFileSync(`${path}.log`, lines.join('\n'))
    const error = await createMockPlatform({ store: createFileStore(path) }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StateFileError)
    expect(String((error as Error).message)).toMatch(
      new RegExp(`^${path}\\.log, line 1: .+; the file is damaged`),
    )
  })

  /** The log's lines after four agents were created (one record each, at least). */
  async function logOfFourAgents(): Promise<{ lines: string[]; key: string | undefined }> {
    const first = await start()
    for (const name of ['a', 'b', 'c', 'd'])
      await call(first, 'POST', '/v1/agents', agentBody(name), first.demo.secretKey)
    await stop(first)
    const lines = readFileSync(`${path}.log`, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
    expect(lines.length).toBeGreaterThanOrEqual(4)
    return { lines, key: first.demo.secretKey }
  }
  const seqOf = (line: string) => (JSON.parse(line.slice(9)) as { seq: number }).seq

  it.each([
    ['a record deleted from the middle', (lines: string[]) => lines.filter((_, i) => i !== 1), 2, 2],
    ['two records swapped', (lines: string[]) => [lines[0], lines[2], lines[1], ...lines.slice(3)], 2, 2],
    ['the first record deleted', (lines: string[]) => lines.slice(1), 1, 1],
  ])(
    'refuses to start from a log with %s, naming the file and line',
    async (_case, damage, line, expectedAt) => {
      const { lines } = await logOfFourAgents()
      const damaged = damage(lines) as string[]
      writeFileSync(`${path}.log`, `${damaged.join('\n')}\n`)
      const expected = seqOf(lines[0] ?? '') + expectedAt - 1
      const error = await createMockPlatform({ store: createFileStore(path) }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(StateFileError)
      expect((error as Error).message).toBe(
        `${path}.log, line ${line}: it holds change set ${seqOf(damaged[line - 1] ?? '')} where ${expected} was due: a record is missing or out of order; the file is damaged (move it away to start from the seeded state, or put back a copy you trust)`,
      )
    },
  )

  it('starts from a log whose records follow each other and the snapshot', async () => {
    const { lines, key } = await logOfFourAgents()
    const seqs = lines.map(seqOf)
    expect(seqs).toEqual(seqs.map((_, i) => (seqs[0] ?? 0) + i))
    const again = await start()
    const listed = (await call(again, 'GET', '/v1/agents?limit=100', undefined, key)).body as {
      data: { name: string }[]
    }
    expect(listed.data.map((agent) => agent.name)).toEqual(expect.arrayContaining(['a', 'b', 'c', 'd']))
  })

  it('names the table, record and field of a record that makes no sense (a key without its hash)', async () => {
    const first = await start()
    await stop(first)
    const keyId = first.demo.secretKeyId
    const text = readFileSync(path, 'utf8')
      .split('\n')
      .map((line) => {
        if (!line.includes(`"keys","${keyId}"`)) return line
        const [table, key, value] = JSON.parse(line.slice(9)) as [string, string, { hash?: string }]
        delete value.hash
        return encodeLine([table, key, value]).trimEnd()
      })
      .join('\n')
    writeFileSync(path, text)
    await expect(createMockPlatform({ store: createFileStore(path) })).rejects.toThrow(
      `table 'keys', record '${keyId}', field 'hash': is missing`,
    )
  })

  it('reads a whole-state file of version 0.1 and converts it', async () => {
    const first = await start()
    const created = await call(first, 'POST', '/v1/agents', agentBody('from 0.1'), first.demo.secretKey)
    const tables = first.snapshot().tables
    await stop(first)
    const byAccount = (table: string) => {
      const out: Record<string, unknown[]> = {}
      for (const [key, value] of tables[table] ?? []) {
        const accountId = key.split('/')[0] ?? ''
        out[accountId] = [...(out[accountId] ?? []), value]
      }
      return out
    }
    const demo = new Map(tables.meta).get('demo') as {
      account_id: string
      secret_key_id: string
      publishable_key_id: string
    }
    const data: Record<string, unknown> = {}
    for (const [id] of tables.accounts ?? [])
      data[id] = {
        agents: byAccount('agents')[id] ?? [],
        callLogs: byAccount('call_logs')[id] ?? [],
        integrations: byAccount('integrations')[id] ?? [],
        teamMembers: byAccount('team_members')[id] ?? [],
        idempotency: [],
      }
    rmSync(`${path}.log`)
    writeFileSync(
      path,
      JSON.stringify({
        version: 1,
        seed: 5,
        clock_offset_seconds: 0,
        demo,
        accounts: (tables.accounts ?? []).map(([, value]) => value),
        keys: (tables.keys ?? []).map(([, value]) => value),
        data,
      }),
    )
    const store = createFileStore(path)
    const second = await createMockPlatform({ seed: 5, store })
    open.push(second)
    expect(store.loaded()?.legacy).toBe(true)
    const agentId = (created.body as { id: string }).id
    expect((await call(second, 'GET', `/v1/agents/${agentId}`, undefined, first.demo.secretKey)).status).toBe(
      200,
    )
    expect(readFileSync(path, 'utf8').startsWith('{')).toBe(false)
  })

  it('compacts the log into a new snapshot, and reads back the same state', async () => {
    // A small seed, so that the log soon outgrows twice the snapshot.
    const small = { agents: 1, callLogs: 2, teamMembers: 1 }
    const platform = await start({ compactAtBytes: 20_000 }, small)
    const key = platform.demo.secretKey
    for (let i = 0; i < 40; i++) await call(platform, 'POST', '/v1/agents', agentBody(`agent ${i}`), key)
    for (let i = 0; i < 50 && existsSync(`${path}.log.old`); i++) await new Promise((r) => setTimeout(r, 20))
    await new Promise((resolve) => setTimeout(resolve, 100))
    const header = JSON.parse(readFileSync(path, 'utf8').split('\n')[0]?.slice(9) ?? '{}') as { seq: number }
    expect(header.seq).toBeGreaterThan(0)
    expect(statSync(`${path}.log`).size).toBeLessThan(20_000)
    const before = platform.snapshot()
    await stop(platform)
    const again = await start({}, small)
    const { journal: _a, windows: _b, keys: keysBefore, ...dataBefore } = before.tables
    const { journal: _c, windows: _d, keys: keysAfter, ...dataAfter } = again.snapshot().tables
    expect(dataAfter).toEqual(dataBefore)
    expect(keysAfter?.length).toBe(keysBefore?.length)
  })

  it('reads a compaction cut short: the old snapshot, the old log and the new one', () => {
    mkdirSync(folder, { recursive: true })
    const put = (seq: number, name: string) => ({ seq, changes: [['accounts', name, { id: name }]] })
    writeFileSync(
      path,
      [
        encodeLine({ format: 'voice-api-kit/state', version: 2, seq: 2 }),
        encodeLine(['accounts', 'a', { id: 'a' }]),
      ].join(''),
    )
    writeFileSync(`${path}.log.old`, [1, 2, 3, 4].map((seq) => encodeLine(put(seq, `s${seq}`))).join(''))
    writeFileSync(`${path}.log`, [5, 6].map((seq) => encodeLine(put(seq, `s${seq}`))).join(''))
    const loaded = readStateFiles(path)
    expect(loaded?.seq).toBe(6)
    expect(loaded?.snapshot.tables.accounts?.map(([key]) => key)).toEqual(['a', 's3', 's4', 's5', 's6'])
  })
})

function hostName(): string {
  return execFileSync('hostname').toString().trim()
}

describe('the file store on a full disk (a 2 MiB tmpfs)', () => {
  let disk: { unmount(): void } | undefined

  afterEach(() => {
    disk?.unmount()
    disk = undefined
  })

  /** A 2 MiB tmpfs for the store (the test skips where mounting is refused). */
  function smallDisk(ctx: { skip(note?: string): void }): string {
    const where = join(folder, 'disk')
    disk = mountSmallDisk(where)
    if (!disk) {
      console.log(NO_MOUNT)
      ctx.skip(NO_MOUNT)
    }
    path = join(where, 'state.json')
    return where
  }

  const names = async (platform: MockPlatform, key: string | undefined) =>
    (
      (await call(platform, 'GET', '/v1/agents?limit=100', undefined, key)).body as {
        data: { name: string }[]
      }
    ).data.map((agent) => agent.name)

  it('answers a write 503, applies nothing, keeps answering reads, and takes writes again once there is room', async (ctx) => {
    const where = smallDisk(ctx)
    const platform = await start()
    const key = platform.demo.secretKey
    const full = fillDisk(where)

    const refused = await call(platform, 'POST', '/v1/agents', agentBody('never stored'), key)
    expect(refused.status).toBe(503)
    expect(refused.headers['retry-after']).toBeDefined()
    expect(refused.body).toMatchObject({ error: { type: 'api_error', code: 'service_unavailable' } })
    expect(String((refused.body as { error: { message: string } }).error.message)).toContain(
      'the disk is full',
    )
    const listed = (await call(platform, 'GET', '/v1/agents?limit=100', undefined, key)) as {
      status: number
      body: { data: { name: string }[] }
    }
    expect(listed.status).toBe(200)
    expect(listed.body.data.map((agent) => agent.name)).not.toContain('never stored')
    expect((await call(platform, 'GET', '/v1/user', undefined, key)).status).toBe(200)

    full.free()
    const created = await call(platform, 'POST', '/v1/agents', agentBody('stored later'), key)
    expect(created.status).toBe(201)
    await stop(platform)
    const again = await start()
    expect(await names(again, key)).toContain('stored later')
    expect(await names(again, key)).not.toContain('never stored')
    await stop(again)
  })

  it('keeps every acknowledged write when the disk fills in the middle of a record, and after room returns', async (ctx) => {
    const where = smallDisk(ctx)
    const platform = await start()
    const key = platform.demo.secretKey
    const acknowledged: string[] = ['first']
    expect((await call(platform, 'POST', '/v1/agents', agentBody('first'), key)).status).toBe(201)
    // The log's last block has some room left: the next records are written in part, then the disk is full.
    const full = fillDisk(where)
    const refused: string[] = []
    for (let i = 0; i < 40 && refused.length < 3; i++) {
      const name = `before ${i}`
      const body = { ...agentBody(name), system_prompt: 'p'.repeat(700 + 37 * i) }
      const answer = await call(platform, 'POST', '/v1/agents', body, key)
      expect([201, 503]).toContain(answer.status)
      ;(answer.status === 201 ? acknowledged : refused).push(name)
    }
    expect(refused.length).toBe(3)
    full.free()
    for (const name of ['after 1', 'after 2']) {
      expect((await call(platform, 'POST', '/v1/agents', agentBody(name), key)).status).toBe(201)
      acknowledged.push(name)
    }
    await stop(platform)

    const store = createFileStore(path)
    const again = await createMockPlatform({ seed: 5, store })
    open.push(again)
    expect(store.loaded()?.tornTail).toBeUndefined()
    const kept = await names(again, key)
    expect(acknowledged.filter((name) => !kept.includes(name))).toEqual([])
    expect(refused.filter((name) => kept.includes(name))).toEqual([])
  })
})

describe('voice-api-kit mock --state-file', () => {
  it.each([
    ['--state-file', '.mock/state.json'],
    ['--store', 'file:.mock/deeper/state.json'],
  ])('creates the folder of a new store (%s %s) in a fresh project', async (flag, value) => {
    const project = join(folder, 'project')
    mkdirSync(project)
    const mock = await spawnMock(['--quiet', flag, value], { cwd: project })
    try {
      const file = join(project, value.replace(/^file:/, ''))
      expect(existsSync(file)).toBe(true)
      expect(existsSync(`${file}.lock`)).toBe(true)
      expect(statSync(dirname(file)).mode & 0o777).toBe(0o700)
    } finally {
      await mock.kill('SIGTERM')
    }
  })

  it('says in one line why the folder of a store cannot be made, with exit code 1', async () => {
    writeFileSync(join(folder, 'a-file'), 'x')
    const error = await spawnMock(['--quiet', '--state-file', join(folder, 'a-file', 'state.json')]).then(
      async (started) => `started (${await started.kill('SIGKILL')})`,
      (e: Error) => e.message,
    )
    expect(error).toMatch(/exited \(1\)/)
    expect(error).toContain(
      `voice-api-kit: state file ${join(folder, 'a-file', 'state.json')}: cannot create its folder ${join(folder, 'a-file')}: a file is in the way.`,
    )
    expect(error).not.toMatch(/\n\s+at /)
  })

  it('refuses to start on a store another mock owns, in one line, with exit code 1', async () => {
    const first = await spawnMock(['--quiet', '--state-file', path])
    try {
      const second = await spawnMock(['--quiet', '--state-file', path]).then(
        () => undefined,
        (error: Error) => error.message,
      )
      expect(second).toMatch(/exited \(1\)/)
      expect(second).toContain(
        `voice-api-kit: state file ${path} is in use by another mock (process ${first.pid}`,
      )
      expect(second).not.toMatch(/\n\s+at /)
    } finally {
      await first.kill('SIGTERM')
    }
  })

  it('refuses to start from a log with a record missing, in one line naming the file and line, with exit code 1', async () => {
    const first = await spawnMock(['--quiet', '--state-file', path])
    try {
      const { key } = await provisionAccount(first.origin, { plan: 'pro' })
      for (const name of ['a', 'b', 'c'])
        expect(
          (await httpJson(first.origin, 'POST', '/v1/agents', { key, body: agentBody(name) })).status,
        ).toBe(201)
    } finally {
      await first.kill('SIGKILL')
    }
    const lines = readFileSync(`${path}.log`, 'utf8').split('\n')
    writeFileSync(`${path}.log`, lines.filter((_, i) => i !== 1).join('\n'))
    const error = await spawnMock(['--quiet', '--state-file', path]).then(
      async (started) => `started (${await started.kill('SIGKILL')})`,
      (e: Error) => e.message,
    )
    expect(error).toMatch(/exited \(1\)/)
    expect(error).toMatch(
      new RegExp(
        `\nvoice-api-kit: ${path}\\.log, line 2: it holds change set \\d+ where \\d+ was due: a record is missing or out of order; the file is damaged[^\n]*\n?$`,
      ),
    )
  })

  it('names the file, table, record and field of a damaged state, in one line, with exit code 1', async () => {
    const first = await spawnMock(['--quiet', '--state-file', path])
    await first.kill('SIGTERM')
    const text = readFileSync(path, 'utf8').replace(/"plan":"pro"/, '"plan":"platinum"')
    writeFileSync(
      path,
      text
        .split('\n')
        .map((line) => (line.includes('platinum') ? encodeLine(JSON.parse(line.slice(9))).trimEnd() : line))
        .join('\n'),
    )
    const error = await spawnMock(['--quiet', '--state-file', path]).then(
      () => '',
      (e: Error) => e.message,
    )
    expect(error).toMatch(/exited \(1\)/)
    expect(error).toMatch(
      new RegExp(
        `voice-api-kit: state file ${path}: table 'accounts', record 'usr_\\w+', field 'plan': has the wrong type`,
      ),
    )
  })
})

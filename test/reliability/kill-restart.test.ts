import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { readStateFiles } from '../../mocks/stores/file/state-files.ts'
import { fillDisk, mountSmallDisk, NO_MOUNT } from '../support/small-disk.ts'
import { httpJson, provisionAccount } from './support/http-json.ts'
import { processState, type SpawnedMock, spawnMock, spawnUnreapedMock } from './support/spawn-mock.ts'
import { agentBody } from './support/targets.ts'
import { type Acknowledged, emptyAcknowledged, startWriteLoad } from './support/write-load.ts'

const CYCLES = Number(process.env.KILL_CYCLES ?? 5)
const WORKERS = 12
const CONNECTION_LOST = /ECONNRESET|ECONNREFUSED|EPIPE|socket hang up/

/** Everything the store wrote (snapshot, logs), as one text. */
function stateTexts(folder: string): string {
  return readdirSync(folder)
    .filter((name) => name.startsWith('state.json'))
    .map((name) => readFileSync(join(folder, name), 'utf8'))
    .join('\n')
}

/** Runs checks in batches so a large state is verified quickly without thousands of sockets at once. */
async function inBatches<T>(items: T[], check: (item: T) => Promise<void>, size = 40): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(check))
}

/** Every acknowledged write is visible through the API of the restarted mock. */
async function verify(origin: string, key: string, acked: Acknowledged): Promise<string[]> {
  const wrong: string[] = []
  const sure = <V>(entries: Iterable<[string, V]>) => [...entries].filter(([id]) => !acked.uncertain.has(id))
  await inBatches(sure(acked.agents), async ([id, name]) => {
    const r = await httpJson(origin, 'GET', `/v1/agents/${id}`, { key })
    if (r.status !== 200 || r.body.name !== name)
      wrong.push(`agent ${id}: ${r.status} ${r.body?.name} != ${name}`)
  })
  await inBatches(
    [...acked.deletedAgents].filter((id) => !acked.uncertain.has(id)),
    async (id) => {
      const r = await httpJson(origin, 'GET', `/v1/agents/${id}`, { key })
      if (r.status !== 404) wrong.push(`deleted agent ${id}: ${r.status}`)
    },
  )
  await inBatches(sure(acked.members), async ([id, email]) => {
    const r = await httpJson(origin, 'GET', `/v1/team-members/${id}`, { key })
    if (r.status !== 200 || r.body.email !== email) wrong.push(`member ${id}: ${r.status}`)
  })
  await inBatches(sure(acked.keys), async ([id, stored]) => {
    const r = await httpJson(origin, 'GET', '/v1/user', { key: stored.value })
    if (r.status !== (stored.revoked ? 401 : 200))
      wrong.push(`key ${id} (revoked ${stored.revoked}): ${r.status}`)
  })
  const clock = await httpJson(origin, 'GET', '/_mock/clock')
  if (clock.body.offset_seconds < acked.clockOffset)
    wrong.push(`clock offset ${clock.body.offset_seconds} < acknowledged ${acked.clockOffset}`)
  return wrong
}

describe('--state-file under SIGKILL', () => {
  let folder: string
  let mock: SpawnedMock | undefined
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'vak-kill-'))
  })
  /** Mocks started by the tests below (the first test keeps its own in `mock`). */
  const started: SpawnedMock[] = []
  const track = (spawned: SpawnedMock) => {
    started.push(spawned)
    return spawned
  }
  afterEach(async () => {
    for (const spawned of started.splice(0)) await spawned.kill('SIGKILL')
  })
  afterAll(async () => {
    await mock?.kill('SIGKILL')
    rmSync(folder, { recursive: true, force: true })
  })

  it(`keeps every acknowledged write and a readable file through ${CYCLES} kill-and-restart cycles under write load`, async () => {
    const state = join(folder, 'state.json')
    const args = ['--quiet', '--state-file', state, '--keys-file', join(folder, 'keys.json')]
    mock = await spawnMock(args)
    const { accountId, key } = await provisionAccount(mock.origin, {
      plan: 'enterprise',
      limits: { hourly: 100_000_000, burst: 100_000_000 },
    })
    const acked = emptyAcknowledged()
    let survived = 0
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const load = startWriteLoad({ origin: mock.origin, key, accountId, acked }, WORKERS)
      await new Promise((resolve) => setTimeout(resolve, 200 + ((cycle * 137) % 300)))
      await mock.kill('SIGKILL')
      load.stop()
      await load.done
      expect(load.failures.filter((f) => !CONNECTION_LOST.test(f))).toEqual([])

      // The files read back whole (a torn last record aside), and hold no key value.
      expect(() => readStateFiles(state)).not.toThrow()
      const text = stateTexts(folder)
      for (const { value } of acked.keys.values()) expect(text.includes(value)).toBe(false)
      expect(text.includes(key)).toBe(false)

      mock = await spawnMock(args)
      expect(await verify(mock.origin, key, acked)).toEqual([])
      expect(readdirSync(folder).filter((name) => name.endsWith('.tmp'))).toEqual([])
      survived++
    }
    const sorted = [...acked.latencies].sort((a, b) => a - b)
    const p50 = sorted[Math.floor(sorted.length / 2)] ?? 0
    const p99 = sorted[Math.floor(sorted.length * 0.99)] ?? 0
    console.log(
      `kill-restart: ${survived} SIGKILL cycles survived, ${acked.writes} acknowledged writes verified ` +
        `(${acked.uncertain.size} unanswered left open), write latency p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, ` +
        `state files ${Math.round(stateTexts(folder).length / 1024)} KiB`,
    )
    expect(survived).toBe(CYCLES)
    expect(acked.writes).toBeGreaterThan(CYCLES * 20)
  }, 120_000)

  it('keeps every acknowledged write through a full disk (a 2 MiB tmpfs) and a SIGKILL', async (ctx) => {
    const where = join(folder, 'small-disk')
    const disk = mountSmallDisk(where)
    if (!disk) {
      console.log(NO_MOUNT)
      return ctx.skip(NO_MOUNT)
    }
    try {
      const args = ['--quiet', '--state-file', join(where, 'state.json')]
      let current = track(await spawnMock(args))
      const { key } = await provisionAccount(current.origin, {
        plan: 'enterprise',
        limits: { hourly: 100_000_000, burst: 100_000_000 },
      })
      const create = (name: string, padding = 0) =>
        httpJson(current.origin, 'POST', '/v1/agents', {
          key,
          body: { ...agentBody(name), system_prompt: `prompt ${'p'.repeat(padding)}` },
        })
      const acknowledged = new Map<string, string>()
      const refused: string[] = []
      const first = await create('first')
      expect(first.status).toBe(201)
      acknowledged.set(first.body.id, 'first')
      // The log's last block has some room: the next records are written in part, then the disk is full.
      const full = fillDisk(where)
      for (let i = 0; i < 40 && refused.length < 3; i++) {
        const answer = await create(`before ${i}`, 600 + 53 * i)
        expect([201, 503]).toContain(answer.status)
        if (answer.status === 201) acknowledged.set(answer.body.id, `before ${i}`)
        else refused.push(`before ${i}`)
      }
      expect(refused.length).toBe(3)
      full.free()
      for (const name of ['after 1', 'after 2']) {
        const answer = await create(name)
        expect(answer.status).toBe(201)
        acknowledged.set(answer.body.id, name)
      }
      await current.kill('SIGKILL')

      current = track(await spawnMock(args))
      const lost: string[] = []
      for (const [id, name] of acknowledged) {
        const read = await httpJson(current.origin, 'GET', `/v1/agents/${id}`, { key })
        if (read.status !== 200 || read.body.name !== name) lost.push(`${name}: ${read.status}`)
      }
      expect(lost).toEqual([])
      expect(current.output()).not.toContain('dropped')
    } finally {
      disk.unmount()
    }
  }, 60_000)

  it('restarts at once after a SIGKILL while the killed process is left unreaped (a zombie)', async () => {
    const state = join(folder, 'zombie', 'state.json')
    mkdirSync(dirname(state), { recursive: true })
    const args = ['--quiet', '--state-file', state]
    const killed = await spawnUnreapedMock(args)
    try {
      const { key } = await provisionAccount(killed.origin, { plan: 'pro' })
      const created = await httpJson(killed.origin, 'POST', '/v1/agents', { key, body: agentBody('kept') })
      expect(created.status).toBe(201)
      await killed.killAndLeave('SIGKILL')
      expect(processState(killed.pid)).toBe('Z')
      expect(JSON.parse(readFileSync(`${state}.lock`, 'utf8')).pid).toBe(killed.pid)

      const restarted = track(await spawnMock(args))
      expect(processState(killed.pid)).toBe('Z')
      const read = await httpJson(restarted.origin, 'GET', `/v1/agents/${created.body.id}`, { key })
      expect(read.status).toBe(200)
      // A second mock on the store while this one lives is still refused.
      const second = await spawnMock(args).then(
        (started) => track(started) && 'started',
        (error: Error) => error.message,
      )
      expect(second).toContain(`is in use by another mock (process ${restarted.pid}`)
    } finally {
      await killed.release()
    }
  }, 60_000)

  it('keeps nothing across restarts without --state-file', async () => {
    const cwd = mkdtempSync(join(folder, 'memory-'))
    const first = await spawnMock(['--quiet'], { cwd })
    const { key } = await provisionAccount(first.origin, { plan: 'pro' })
    const created = await httpJson(first.origin, 'POST', '/v1/agents', { key, body: agentBody('in memory') })
    expect(created.status).toBe(201)
    await first.kill('SIGKILL')
    const second = await spawnMock(['--quiet'], { cwd })
    try {
      expect((await httpJson(second.origin, 'GET', '/v1/user', { key })).status).toBe(401)
      expect(readdirSync(cwd)).toEqual([])
    } finally {
      await second.kill('SIGKILL')
    }
  })
})
